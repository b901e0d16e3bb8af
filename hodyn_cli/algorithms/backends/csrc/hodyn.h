/* What Python calls in hodyn's compiled kernels: the one declaration of the entry points,
 * their constants and status codes. The C sources include it (the compiler holds every
 * definition to its declaration) and backends/abi.py reads it (the ctypes argument types,
 * MAXK, the ABI number and the status codes come from here, not from a copy).
 *
 * Argument types as ctypes sees them: a `const double *` or `double *` is a C-contiguous
 * float64 array; one marked HK_NULLABLE may also be NULL (None); HK_STRIDED marks the
 * address of sample 0's values of a strided view (the next sample `qstride` doubles on);
 * `const int32_t *`, `const uint8_t *`: int32 and uint8 arrays; `int64_t *`: one int64 the
 * entry point sets. Arrays are described where they are defined (the .c files). */
#ifndef HODYN_H
#define HODYN_H

#include <stdint.h>

#define HK_NULLABLE
#define HK_STRIDED

#define MAXK 24 /* twist derivative orders 0..MAXK-1: torque order <= MAXK - 2 */

/* Bumped whenever an entry point's arguments or meaning change: backends/compiled.py refuses
 * a library built from other sources (a stale build) and falls back to numpy. */
#define HODYN_KERNEL_ABI 28

/* status codes of every entry point (backends/compiled.py turns them into exceptions) */
enum { HK_OK = 0, HK_NOMEM = 1, HK_ORDER = 2, HK_MODEL = 3, HK_SIZE = 4, HK_SINGULAR = 5 };

/* A joint's kind: how its screw X moves its body (the model's joint types,
 * core/model.py; a continuous joint is a revolute one). The multi-DOF kinds (spherical,
 * planar, free: 3, 3 and 6 velocity coordinates) run in hodyn_body_fixed only; every other
 * entry point refuses a model with one (HK_MODEL). */
enum { HJ_PRISMATIC = 0, HJ_REVOLUTE = 1, HJ_HELICAL = 2, HJ_SPHERICAL = 3, HJ_PLANAR = 4,
       HJ_FREE = 5 };

/* The model as every entry point receives it. n bodies; parent[n] (< own index, -1: the
 * root); kind[n] (HJ_*); dof[n + 1]: where each joint's velocity coordinates start (dof[n]
 * = nv; dof[i] = i where every joint has one); pitch[n]: a helical joint's h (m/rad; 0 for
 * the others); X[n][6] (revolute (w; 0), prismatic (0; v), helical (w; h w), planar (n; u),
 * spherical and free 0: core/model.py's subspaces); M[n][6][6] rigid-body
 * inertias; A0, A1, A2 [n][6][6]: Ad_{B^-1}, ad_Y Ad_{B^-1}, ad_Y^2 Ad_{B^-1} for the
 * screw without its pitch, Y = X - h (0; w) (Y = X but for a helical joint, whose Y is
 * the revolute (w; 0)); anc[n][n]: anc[b * n + c] != 0 iff body c is body b or one of its
 * ancestors; M0[6][6]: the root link's inertia (and that of the links welded to it),
 * about its origin. */
typedef struct {
    int32_t n;
    const int32_t *parent, *kind, *dof;
    const double *pitch, *X, *M, *A0, *A1, *A2;
    const uint8_t *anc;
    const double *M0;
} HModel;

/* what the library is */
int hodyn_kernel_abi(void);
int hodyn_kernel_lanes(void);
const char *hodyn_kernel_isa(void);
int hodyn_cpu_level(void);

/* the dynamics (body_fixed.c, closed_form.c, regressor.c, sensitivities.c, partials.c,
 * elastic.c) */
int hodyn_body_fixed(const HModel *m, int64_t N, int D, const double *HK_STRIDED qs,
                     int64_t qstride, int order, const double *base, int64_t base_rows,
                     const double *HK_NULLABLE W, double *out, double *HK_NULLABLE Vout,
                     double *HK_NULLABLE F0out);
int hodyn_body_fixed_probes(const HModel *m, int64_t N, int D, const double *HK_STRIDED qs,
                            int64_t qstride, int P, int64_t pstride, int order,
                            const double *base, double *out);
int hodyn_closed_form(const HModel *md, int64_t N, int D, const double *HK_STRIDED qs,
                      int64_t qstride, int r, const double *u_root, int64_t u_rows,
                      const double *HK_NULLABLE nu0, const double *HK_NULLABLE W, double *Mo,
                      double *Co, double *HK_NULLABLE Cbo, double *go, double *Qo);
int hodyn_regressor(const HModel *m, int64_t N, int D, const double *HK_STRIDED qs,
                    int64_t qstride, int order, const double *base, int64_t base_rows, int root,
                    double *out);
int hodyn_sensitivities(const HModel *m, int64_t N, int D, const double *HK_STRIDED qs,
                        int64_t qstride, int order, const double *base, int64_t base_rows,
                        const double *HK_NULLABLE W, double *out);
int hodyn_partials(const HModel *m, int64_t N, int D, const double *HK_STRIDED qs,
                   int64_t qstride, const double *base, int64_t base_rows,
                   const double *HK_NULLABLE W, double *HK_NULLABLE dq,
                   double *HK_NULLABLE dqd, double *HK_NULLABLE Mo, double *HK_NULLABLE tau);
int hodyn_elastic(const HModel *m, int64_t N, int D, const double *HK_STRIDED qs,
                  int64_t qstride, int R, const double *base, int64_t base_rows,
                  const double *HK_NULLABLE W, const double *HK_NULLABLE extra,
                  const uint8_t *driven, const double *gear, const double *efficiency,
                  const double *stiffness, const double *inertia, const double *axis,
                  const int32_t *u_orders, int P, const int32_t *pairs, const uint8_t *accel,
                  const uint8_t *speed, int order, double *u_out, double *theta_out,
                  double *taum_out);

/* a floating root's jet and small dense solves (floating.c, solve.c) */
int hodyn_root_jet(int64_t N, int K1, int D, const double *R, const double *Vb,
                   const double *g, double *out);
int hodyn_spd_solve(int64_t N, int n, const double *M, int k, const double *B, double *X);

/* the sequential passes of reachability along a path, B-splines' banded solve and values
 * (reach.c) */
int hodyn_reach_controllable(int64_t M, int m, const double *alpha, const double *beta,
                             const double *gamma, const double *delta, double tiny,
                             const double *lo_s, const double *hi_s, double *K);
int hodyn_reach_forward(int64_t M, int m, const double *alpha, const double *beta,
                        const double *gamma, const uint8_t *up, const uint8_t *down,
                        const double *delta, const double *K, double *x, double *u);
int hodyn_reach_bounds(int64_t M, int m, const double *alpha, const double *beta,
                       const double *gamma, const uint8_t *up, const uint8_t *down,
                       double *lo, double *hi);
int hodyn_banded_solve(int64_t n, int k, double *band, int r, double *rhs);
int hodyn_bspline(int64_t nt, const double *t, int k, int r, const double *c, int64_t E,
                  const double *x, int extrapolate, double *out);
int hodyn_bspline_jet(int64_t nt, const double *t, int k, int R, int r, const double *c,
                      int64_t cstride, int64_t E, const double *x, int extrapolate,
                      double *out);

/* the contacts' share of a floating base (contacts.c) */
int hodyn_contact_frames(const HModel *m, int64_t N, int D, const double *HK_STRIDED qs,
                         int64_t qstride, int order, int C, const int32_t *body,
                         const double *T, double *R, double *p);
int hodyn_contact_share(int64_t N, int K1, int C, const double *R, const double *p,
                        const double *HK_NULLABLE R0, const uint8_t *point, int64_t rows_n,
                        const int32_t *rows, int Co, const int32_t *on, const double *Hinv,
                        int rank, const double *b, double *F, double *HK_NULLABLE left,
                        double *HK_NULLABLE Fc);

/* closed loops (loops.c): the cuts S, side_body, T, P, path, moves, R, row_loop, row_axis */
int hodyn_loop_kinematics(const HModel *m, int64_t N, int D, const double *HK_STRIDED qs,
                          int64_t qstride, int S, const int32_t *side_body, const double *T,
                          int P, const int32_t *path, const double *moves, int R,
                          const int32_t *row_loop, const int32_t *row_axis, int rate, int order,
                          double *HK_NULLABLE c, double *HK_NULLABLE J);
int hodyn_loop_newton(const HModel *m, int64_t N, double *q, int S, const int32_t *side_body,
                      const double *T, int P, const int32_t *path, const double *moves, int R,
                      const int32_t *row_loop, const int32_t *row_axis, int r, const double *Pm,
                      const int32_t *passive, int iterations, double step_tol,
                      const double *unit, double residual_tol, double quadratic, double near,
                      double *c, double *PJ, double *off, uint8_t *ok, int D, int KJ, int64_t Nf,
                      double *HK_NULLABLE qs, const int32_t *HK_NULLABLE rows,
                      double *HK_NULLABLE jets);
int hodyn_loop_closed(const HModel *m, int64_t N, const double *qa, int ma,
                      const int32_t *active, const uint8_t *closing, const double *reference,
                      int coarse, double step,
                      int S, const int32_t *side_body, const double *T, int P,
                      const int32_t *path, const double *moves, int R, const int32_t *row_loop,
                      const int32_t *row_axis, int r, const double *Pm, const int32_t *passive,
                      int iterations, int between, double step_tol, const double *unit,
                      double residual_tol,
                      double quadratic, double near, double taylor_tol,
                      const double *HK_NULLABLE t, const int32_t *ids,
                      double *q, double *c, double *PJ, double *off, uint8_t *rated, int D,
                      int KJ, int64_t Nf, double *HK_NULLABLE qs, double *HK_NULLABLE jets,
                      int64_t *complete);
int hodyn_loop_rates(const HModel *m, int64_t N, int D, double *qs, int64_t M,
                     const int32_t *rows, int S, const int32_t *side_body, const double *T,
                     int P, const int32_t *path,
                     const double *moves, int R, const int32_t *row_loop,
                     const int32_t *row_axis, int r, const double *Pm, const int32_t *passive,
                     const double *Jp, int KJ, double *HK_NULLABLE PJ);
int hodyn_loop_predict(int64_t N, int D, int n, const double *full, const double *t, int64_t M,
                       const int32_t *samples, int taylor, int m, const int32_t *active,
                       const uint8_t *closing, const double *unit, double step, double tol,
                       const double *W, double *guess, uint8_t *far, int32_t *anchor);
int hodyn_loop_between(const HModel *m, int64_t N, int D, double *full, const double *t,
                       int64_t M, const int32_t *samples, int taylor, double step,
                       double taylor_tol, const double *W, int S, const int32_t *side_body,
                       const double *T, int P, const int32_t *path, const double *moves, int R,
                       const int32_t *row_loop, const int32_t *row_axis, int r,
                       const double *Pm, const int32_t *passive, int ma,
                       const int32_t *active, const uint8_t *closing, int iterations,
                       int between, double step_tol, const double *unit, double residual_tol,
                       double open_tol,
                       double quadratic, double near, double *c, double *PJ, double *off,
                       int KJ, double *HK_NULLABLE jets, int64_t *complete);
int hodyn_loop_project(int64_t N, int K1, int n, int C, int r, int KJ, const double *PJ,
                       const double *HK_STRIDED f, int64_t fs, int64_t fk, int ma, const int32_t *active, const int32_t *passive,
                       double *lam, double *tau);

/* inverse kinematics (ik.c) */
int hodyn_ik_newton(const HModel *md, int64_t N, const double *q, int r, const int32_t *path,
                    const double *T, int m, const double *HK_NULLABLE Rd, const double *pd,
                    int steps, double *q_out, double *err);
int hodyn_ik_rates(const HModel *md, int64_t N, const double *q, int r, const int32_t *path,
                   const double *T, int m, const double *base, double unit, int D,
                   const double *HK_NULLABLE y,
                   const double *HK_NULLABLE qref, double gain, double *qs, double *cond);
int hodyn_ik_integrate(const HModel *md, int64_t N, int r, const int32_t *path,
                       const double *T, int m, const double *base, double unit, int D,
                       const double *y, const double *HK_NULLABLE Rd, const double *pd,
                       const double *ts, const double *qref, double gain, const double *last, double t_last,
                       double cond_last, const double *HK_NULLABLE before, double t_before,
                       const double *weights, const double *err_const, int newton_steps,
                       int passes, double tolerance, double jump, double *qs, double *cond,
                       int64_t *done);

#endif
