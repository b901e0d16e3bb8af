/* The compiled kernels' shared parts: the lane type, the spatial algebra on it, and the
 * passes every kernel runs (passes.c). What Python calls is declared in hodyn.h.
 *
 * Samples run LANES at a time in lockstep: one `vd` holds the same quantity of LANES
 * samples (GCC/Clang vector extensions), so that the recursion's chains of short dependent
 * products turn into throughput. setup.py compiles the same sources once per instruction set
 * (LANES 2: SSE2/NEON, the portable baseline; 4: AVX2+FMA; 8: AVX-512) and
 * backends/compiled.py loads the widest one the CPU runs. A last partial group repeats its final sample in the
 * unused lanes and does not store them.
 *
 * Conventions (docs/conventions.md): screws (angular; linear), wrenches (moment; force);
 * Ad = [[R, 0], [P, R]] (P = skew(p) R); a rigid-body inertia [[Theta, skew(h)],
 * [-skew(h), m I]] (h = m c); both are used by their blocks. */
#ifndef HODYN_KERNEL_H
#define HODYN_KERNEL_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef LANES
#define LANES 2
#endif
typedef double vd __attribute__((vector_size(LANES * sizeof(double))));

#include "hodyn.h" /* MAXK, the ABI number, the status codes, HModel */

extern double BINOM[MAXK][MAXK]; /* BINOM[k][j] = C(k, j) */

typedef struct { double R[9], P[9]; } Adjoint;       /* constant blocks, scalar */
typedef struct { vd R[9], P[9]; } AdjointV;           /* per-sample blocks */
typedef struct { double Th[9], h[3], m; } Inertia;

/* Per-call constants: the model and its joint adjoints and inertias by blocks. */
typedef struct {
    const HModel *m;
    int n;
    Adjoint *B;   /* [3 n]: Ad_{B^-1}, ad_X Ad_{B^-1}, ad_X^2 Ad_{B^-1} of each body */
    Inertia *In;  /* [n] */
    Inertia In0;  /* the root's */
} Consts;

int hk_check(const HModel *m, int64_t N, int D, int need_D, int order, int64_t rows,
             int64_t qstride);
/* hk_check with the multi-DOF kinds (HJ_SPHERICAL, PLANAR, FREE) allowed where multi != 0;
 * hk_check refuses them */
int hk_check_joints(const HModel *m, int64_t N, int D, int need_D, int order, int64_t rows,
                    int64_t qstride, int multi);
/* velocity coordinates of a joint of a kind */
static inline int hk_joint_dofs(int kind) {
    return kind == HJ_FREE ? 6 : kind == HJ_SPHERICAL || kind == HJ_PLANAR ? 3 : 1;
}
int hk_consts(const HModel *m, Consts *c);
void hk_free_consts(Consts *c);
void *hk_alloc(size_t bytes); /* aligned for vd; NULL if out of memory */

/* ---- loading and storing lane groups ---------------------------------------------------- */
/* lane_s[l]: the sample of lane l in the group starting at s0 (the last one repeated) */
static inline void hk_lanes(int64_t s0, int64_t N, int64_t *lane_s) {
    for (int l = 0; l < LANES; l++) lane_s[l] = s0 + l < N ? s0 + l : N - 1;
}

/* out[c] = rows[lane_s[l] * stride + c] for c < count, one vd per entry */
static inline void hk_gather(const double *rows, int64_t stride, const int64_t *lane_s,
                             int64_t count, vd *out) {
    for (int64_t c = 0; c < count; c++)
        for (int l = 0; l < LANES; l++) out[c][l] = rows[lane_s[l] * stride + c];
}

/* rows[(s0 + l) * stride + c] = in[c][l] for the group's real lanes */
static inline void hk_scatter(const vd *in, int64_t count, int64_t s0, int64_t N,
                              int64_t stride, double *rows) {
    for (int l = 0; l < LANES && s0 + l < N; l++) {
        double *row = rows + (s0 + l) * stride;
        for (int64_t c = 0; c < count; c++) row[c] = in[c][l];
    }
}

/* ---- spatial algebra on lanes ----------------------------------------------------------- */
static inline void vcross(const vd *a, const vd *b, vd *out) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* a x b for a constant a */
static inline void ccross(const double *a, const vd *b, vd *out) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static inline void vm3v(const vd *A, const vd *x, vd *out) {
    out[0] = A[0] * x[0] + A[1] * x[1] + A[2] * x[2];
    out[1] = A[3] * x[0] + A[4] * x[1] + A[5] * x[2];
    out[2] = A[6] * x[0] + A[7] * x[1] + A[8] * x[2];
}

static inline void vm3tv(const vd *A, const vd *x, vd *out) {
    out[0] = A[0] * x[0] + A[3] * x[1] + A[6] * x[2];
    out[1] = A[1] * x[0] + A[4] * x[1] + A[7] * x[2];
    out[2] = A[2] * x[0] + A[5] * x[1] + A[8] * x[2];
}

/* Ad x = (R w; P w + R v) */
static inline void vad_apply(const AdjointV *A, const vd *x, vd *out) {
    vd t[3];
    vm3v(A->R, x, out);
    vm3v(A->P, x, out + 3);
    vm3v(A->R, x + 3, t);
    out[3] += t[0]; out[4] += t[1]; out[5] += t[2];
}

/* Ad^T y = (R^T m + P^T f; R^T f) */
static inline void vadT_apply(const AdjointV *A, const vd *y, vd *out) {
    vd t[3];
    vm3tv(A->R, y, out);
    vm3tv(A->P, y + 3, t);
    out[0] += t[0]; out[1] += t[1]; out[2] += t[2];
    vm3tv(A->R, y + 3, out + 3);
}

/* M x = (Theta w + h x v; m v - h x w) */
static inline void vinertia_apply(const Inertia *I, const vd *x, vd *out) {
    vd t[3];
    const double *T = I->Th;
    out[0] = T[0] * x[0] + T[1] * x[1] + T[2] * x[2];
    out[1] = T[3] * x[0] + T[4] * x[1] + T[5] * x[2];
    out[2] = T[6] * x[0] + T[7] * x[1] + T[8] * x[2];
    ccross(I->h, x + 3, t);
    out[0] += t[0]; out[1] += t[1]; out[2] += t[2];
    ccross(I->h, x, t);
    out[3] = I->m * x[3] - t[0]; out[4] = I->m * x[4] - t[1]; out[5] = I->m * x[5] - t[2];
}

/* ad_V^T h = -(w x m + v x f; w x f) */
static inline void vcoad(const vd *V, const vd *h, vd *out) {
    vd t[3];
    vcross(V, h, out);
    vcross(V + 3, h + 3, t);
    out[0] = -(out[0] + t[0]); out[1] = -(out[1] + t[1]); out[2] = -(out[2] + t[2]);
    vcross(V, h + 3, out + 3);
    out[3] = -out[3]; out[4] = -out[4]; out[5] = -out[5];
}

/* ad_V y = (w x y_w; v x y_w + w x y_v) */
static inline void vad(const vd *V, const vd *y, vd *out) {
    vd t[3];
    vcross(V, y, out);
    vcross(V + 3, y, out + 3);
    vcross(V, y + 3, t);
    out[3] += t[0]; out[4] += t[1]; out[5] += t[2];
}

/* ---- a joint's screw, by its kind (hodyn.h: HJ_*) ------------------------------------ */
/* ad_X y and ad_X^T y for a joint screw X of a kind (HJ_*) and pitch h: revolute (w; 0),
 * prismatic (0; v), helical (w; h w), whose ad_X y = (w x y_w; w x y_v + h w x y_w) is the
 * revolute's plus h times its angular part moved to the linear one (h = 0 adds zeros: the
 * revolute's numbers). The callers read a body's kind, pitch and X once, outside their
 * loops. */
static inline void vjoint_ad(const double *X, int kind, double h, const vd *y, vd *out) {
    if (kind == HJ_PRISMATIC) {
        out[0] = out[1] = out[2] = (vd){0};
        ccross(X + 3, y, out + 3);
        return;
    }
    ccross(X, y, out);
    ccross(X, y + 3, out + 3);
    if (kind == HJ_HELICAL)
        for (int e = 0; e < 3; e++) out[3 + e] += h * out[e];
}

/* ad_X^T y = -(w x y_m + v x y_f; w x y_f): a helical joint's adds h times the linear part
 * to the angular one */
static inline void vjoint_coad(const double *X, int kind, double h, const vd *y, vd *out) {
    if (kind == HJ_PRISMATIC) {
        ccross(X + 3, y + 3, out);
        out[3] = out[4] = out[5] = (vd){0};
    } else {
        ccross(X, y, out);
        ccross(X, y + 3, out + 3);
    }
    for (int e = 0; e < 6; e++) out[e] = -out[e];
    if (kind == HJ_HELICAL)
        for (int e = 0; e < 3; e++) out[e] += h * out[3 + e];
}

/* The joint adjoint Ad_{C_{i,p}} = exp(-q ad_X) Ad_{B^-1} of body i, by its blocks R (rows
 * `stride` apart) and P, from the constants A0, A1, A2 of hodyn.h. The screw without its
 * pitch Y has ad_Y^3 = -ad_Y (unit revolute) or ad_Y^2 = 0 (prismatic), so (Rodrigues on the
 * adjoint) exp(-q ad_Y) = I - s ad_Y + c ad_Y^2 with (s, c) = (sin q, 1 - cos q) resp.
 * (q, 0). A helical X = Y + h (0; w) has ad_X = ad_Y + h N, N = [[0, 0], [W, 0]]
 * (W = skew(w)), which commutes with ad_Y and N^2 = 0: exp(-q ad_X) = [[I, 0], [-h q W, I]]
 * exp(-q ad_Y), the revolute's adjoint [[R, 0], [P, R]] with P - h q W R (the translation
 * by h q along w that the screw adds to the turn; h = 0 subtracts zeros). */
static inline void hk_joint_coefficients(int kind, vd q, vd *s, vd *c) {
    vd sn = q, cs = (vd){0};
    if (kind != HJ_PRISMATIC)
        for (int l = 0; l < LANES; l++) { /* one sincos call: the compiler pairs them */
            sn[l] = sin(q[l]);
            cs[l] = 1.0 - cos(q[l]);
        }
    *s = sn;
    *c = cs;
}

/* P -= hq W R for 3x3 blocks R, P whose rows are `stride` apart (W = skew(w)) */
static inline void hk_helical_shift(const double *w, vd hq, const vd *R, vd *P, int stride) {
    for (int c = 0; c < 3; c++) {
        const vd r0 = R[c], r1 = R[stride + c], r2 = R[2 * stride + c];
        P[c] -= hq * (w[1] * r2 - w[2] * r1);
        P[stride + c] -= hq * (w[2] * r0 - w[0] * r2);
        P[2 * stride + c] -= hq * (w[0] * r1 - w[1] * r0);
    }
}

/* out = A B for adjoint blocks: [[Ra, 0], [Pa, Ra]] [[Rb, 0], [Pb, Rb]] */
static inline void hk_compose(const AdjointV *A, const AdjointV *B, AdjointV *out) {
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            vd sr = (vd){0}, sp = (vd){0};
            for (int k = 0; k < 3; k++) {
                sr += A->R[3 * r + k] * B->R[3 * k + c];
                sp += A->P[3 * r + k] * B->R[3 * k + c] + A->R[3 * r + k] * B->P[3 * k + c];
            }
            out->R[3 * r + c] = sr;
            out->P[3 * r + c] = sp;
        }
}

/* S = Ad_C X for a constant screw X, from Ai = Ad_C^-1 = [[R, 0], [P, R]]:
 * Ad_C = [[R^T, 0], [-R^T P R^T, R^T]], so S = (R^T w; R^T (v - P R^T w)) */
static inline void hk_spatial_screw(const AdjointV *Ai, const double *X, vd *S) {
    vd x[3], t[3];
    for (int e = 0; e < 3; e++) x[e] = (vd){0} + X[e];
    vm3tv(Ai->R, x, S);
    vm3v(Ai->P, S, t);
    for (int e = 0; e < 3; e++) x[e] = X[3 + e] - t[e];
    vm3tv(Ai->R, x, S + 3);
}

/* A body's pose (R, p) in the root frame from Ai = Ad_{C_b}^-1 = [[R^T, 0], [skew(a) R^T,
 * R^T]], a = -R^T p */
static inline void hk_pose(const AdjointV *Ai, vd *R, vd *p) {
    vd a[3];
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < 3; k++) R[3 * r + k] = Ai->R[3 * k + r];
    a[0] = Ai->P[6] * Ai->R[3] + Ai->P[7] * Ai->R[4] + Ai->P[8] * Ai->R[5];   /* skew(a)[2][1] */
    a[1] = Ai->P[0] * Ai->R[6] + Ai->P[1] * Ai->R[7] + Ai->P[2] * Ai->R[8];   /* skew(a)[0][2] */
    a[2] = Ai->P[3] * Ai->R[0] + Ai->P[4] * Ai->R[1] + Ai->P[5] * Ai->R[2];   /* skew(a)[1][0] */
    vm3v(R, a, p);
    for (int e = 0; e < 3; e++) p[e] = -p[e];
}

/* A body's pose jet R[K1][9], p[K1][3] in the root frame from Ai = Ad_{C_b}^-1 and its twist
 * jet V[>= K1 - 1][6] (body frame): R' = R skew(w), p' = R v, so
 *   R^(k+1) = sum_j C(k,j) R^(k-j) skew(w^(j)),   p^(k+1) = sum_j C(k,j) R^(k-j) v^(j) */
static inline void hk_pose_jet(const AdjointV *Ai, const vd *V, int K1, vd *R, vd *p) {
    vd t[3];
    hk_pose(Ai, R, p);
    for (int k = 0; k + 1 < K1; k++) {
        vd *Rn = R + 9 * (k + 1), *pn = p + 3 * (k + 1);
        for (int e = 0; e < 9; e++) Rn[e] = (vd){0};
        pn[0] = pn[1] = pn[2] = (vd){0};
        for (int j = 0; j <= k; j++) {
            const vd *w = V + 6 * j, *Rk = R + 9 * (k - j);
            const double cw = BINOM[k][j];
            for (int r = 0; r < 3; r++) {   /* row r of R skew(w): R_r x w */
                const vd *x = Rk + 3 * r;
                Rn[3 * r] += cw * (x[1] * w[2] - x[2] * w[1]);
                Rn[3 * r + 1] += cw * (x[2] * w[0] - x[0] * w[2]);
                Rn[3 * r + 2] += cw * (x[0] * w[1] - x[1] * w[0]);
            }
            vm3v(Rk, w + 3, t);
            for (int e = 0; e < 3; e++) pn[e] += cw * t[e];
        }
    }
}

static inline vd vdot6(const vd *a, const vd *b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}

static inline vd cdot6(const double *a, const vd *b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}

/* ---- the body-fixed passes (passes.c), one lane group ----------------------------------- */
/* Ad_{C_{i,p}} of body i at its joint value q (lanes) */
void hk_joint_adjoint(const Consts *c, int i, vd q, AdjointV *Ad);

/* d^k/dt^k (Ad_{C_{i,p}} x(t)), k < K1, from x's derivatives in[K1][6] whose orders below z
 * are zero: the a-table of body_fixed.py (Q[k * n + i] = q_i^(k)); out[K1][6] */
void hk_transport_down(const Consts *c, int i, const vd *Q, const AdjointV *Ad, const vd *in,
                       int K1, int z, vd *out);

/* The body Jacobians' columns and their derivatives, J[b][a][r1][6] for a = b or an
 * ancestor of b (other entries untouched): J_b[:, b] = X_b, J_b[:, a] = d^k(Ad_{C_{b,p}}
 * J_p[:, a]), the columns' jets coming down the tree like the twists */
void hk_jacobian_columns(const Consts *c, int r1, const vd *Q, const AdjointV *Ad, vd *J);

/* d^k/dt^k (Ad_{C_{i,p}}^T y(t)), k < r1, from y's derivatives in[r1][6], added to out[r1][6]:
 * the b-table of body_fixed.py */
void hk_transport_up(const Consts *c, int i, const vd *Q, const AdjointV *Ad, const vd *in,
                     int r1, vd *out);

/* Forward pass: Ad[n] and twists V[n][K1][6] from the root's twist jet base[K1][6] */
void hk_forward(const Consts *c, int K1, const vd *Q, const vd *base, AdjointV *Ad, vd *V);

/* One body's step of it: Ad[i] and V[i][K1][6] from its parent's (or base) */
void hk_forward_body(const Consts *c, int i, int K1, const vd *Q, const vd *base, AdjointV *Ad,
                     vd *V);

/* Its twists alone, Ad[i] given (a pass again over the same positions, other derivatives) */
void hk_forward_twists(const Consts *c, int i, int K1, const vd *Q, const vd *base,
                       const AdjointV *Ad, vd *V);

/* One lane group's motion, as every kernel starts it: the joints' jets Q from qs (sample s's
 * [D][n] at qs + s qstride; nq = the first orders' values), the root's jet bv from base[base_rows][K1][6] where it
 * moves per sample (base_rows > 1; a shared one is gathered once, before the loop), then the
 * forward pass: Ad[n] and V[n][K1][6] */
static inline void hk_lane_motion(const Consts *c, int K1, const double *qs, int64_t qstride,
                                  int nq,
                                  const double *base, int64_t base_rows,
                                  const int64_t *lane_s, vd *Q, vd *bv, AdjointV *Ad, vd *V) {
    hk_gather(qs, qstride, lane_s, nq, Q);
    if (base_rows > 1) hk_gather(base, 6 * K1, lane_s, 6 * K1, bv);
    hk_forward(c, K1, Q, bv, Ad, V);
}

/* One lane group's external wrenches F[n][r1][6] from W[N][n][r1][6], or zeros (W NULL) */
static inline void hk_lane_wrenches(const double *W, int n, int r1, const int64_t *lane_s,
                                    vd *F) {
    if (W) hk_gather(W, 6 * r1 * n, lane_s, 6 * r1 * n, F);
    else memset(F, 0, sizeof(vd) * 6 * r1 * n);
}

/* The Newton-Euler wrench of one body and its derivatives, eqs. (42), (25), added to
 * F[r1][6]: F^(k) += h^(k+1) - sum_j C(k,j) ad*_{V^(j)} h^(k-j), from its twist jet V[r1+1][6];
 * h[r1+1][6] receives the momenta M V^(k) */
void hk_momentum_rates(const Inertia *I, const vd *V, int r1, vd (*h)[6], vd *F);

/* hodyn_body_fixed of a model with multi-DOF joints (multi_dof.c) */
int hk_body_fixed_multi(const HModel *m, int64_t N, int D, const double *qs, int64_t qstride,
                        int order, const double *base, int64_t base_rows, const double *W,
                        double *out, double *Vout, double *F0out);

/* Backward pass: F[n][r1][6] holds the external wrenches on entry (or zeros) and the joint
 * wrenches on return; h[n][r1 + 1][6] the momenta M_i V_i^(k) (may be NULL: not kept);
 * tau[r1][n] */
void hk_backward(const Consts *c, int r1, const vd *Q, const vd *V, const AdjointV *Ad, vd *F,
                 vd *h, vd *tau);

/* The root's wrench F0[r1][6] (what its supports exert on it, root frame) and derivatives
 * after hk_backward: its own momentum rates with the root jet base[r1+1][6] plus the
 * joint wrenches F of its children transported to it (floating.py, eq. (42)) */
void hk_root_wrench(const Consts *c, int r1, const vd *Q, const vd *base, const AdjointV *Ad,
                    const vd *F, vd *F0);

/* log(R) per lane, as lie.rotation_log (beyond pi/2: the axis from the symmetric part's column);
 * the IK's pose error and the loops' frame gaps */
static inline void rotation_log(const vd *R, vd *w) {
    for (int l = 0; l < LANES; l++) {
        double M[9], s[3];
        for (int e = 0; e < 9; e++) M[e] = R[e][l];
        s[0] = 0.5 * (M[7] - M[5]);
        s[1] = 0.5 * (M[2] - M[6]);
        s[2] = 0.5 * (M[3] - M[1]);
        double c = 0.5 * (M[0] + M[4] + M[8] - 1.0);
        c = c < -1.0 ? -1.0 : c > 1.0 ? 1.0 : c;
        const double sn = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
        const double theta = atan2(sn, c);
        const double scale = theta < 1e-4 ? 1.0 + theta * theta / 6.0 : theta / sn;
        for (int e = 0; e < 3; e++) w[e][l] = s[e] * scale;
        if (c < 0.0) {   /* theta > pi/2: the axis from the symmetric part */
            double Bm[9];
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++)
                    Bm[3 * a + b] = 0.5 * (M[3 * a + b] + M[3 * b + a]) - (a == b ? c : 0.0);
            int col = 0;
            for (int a = 1; a < 3; a++)
                if (Bm[4 * a] > Bm[4 * col]) col = a;
            double ax[3] = {Bm[col], Bm[3 + col], Bm[6 + col]};
            double nrm = sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
            nrm = nrm > 1e-300 ? nrm : 1e-300;
            const double sign = (ax[0] * s[0] + ax[1] * s[1] + ax[2] * s[2]) < 0 ? -1.0 : 1.0;
            for (int e = 0; e < 3; e++) w[e][l] = theta * sign * ax[e] / nrm;
        }
    }
}

#endif
