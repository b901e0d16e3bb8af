/* Inverse kinematics per sample (ik.py is the reference: _pose_error, _newton and _rates in
 * numpy; tests/test_ik_kernel.py holds them together), in the same equations and order.
 *
 * Along the path of r joints from the root to the link (bodies ascending, each the parent of
 * the next): Ai_i = Ad_{C_i}^-1 = Ad_{C_{i,p}} Ai_p, the spatial screws S_i = Ad_{C_i} X_i
 * (J = [S_1 ... S_r]), the link's pose C = C_b T. Task Jacobian J_t = J (pose, m = 6) or
 * P(p) J = J_v + J_w x p (position, m = 3). Its thin SVD by one-sided Jacobi rotations on
 * B = J_t^T (r >= m) or B = J_t (r < m): B V = W with orthogonal columns, s_j = |w_j|; so
 * pinv(J_t) = W diag(s^-2) V^T (r >= m) or V diag(s^-2) W^T, (J_t J_t^T)^-1 = V diag(s^-2) V^T,
 * and the condition number max s / min s (a pose task's with its translational rows the
 * velocity of the robot's base point, in the arm's length unit: balanced_condition).
 *
 * hodyn_ik_newton: Newton on the pose error e = (log(R_d R^T); p_d - p - w x p) (position:
 * p_d - p) with steps dq = pinv(J_t) e: by Cholesky of the Gram matrix where J_t is well
 * conditioned (gram_step), else from the SVD (singular values below 1e-15 of the largest
 * dropped, numpy's pinv).
 * hodyn_ik_rates: Algorithm 2 (ik.py's module docstring): for k < D
 *   J_t^(k) = Y^(k) (pose), or Y_v^(k) + Y_w^(k) x p + sum_{j=1..k} C(k,j) Y_w^(k-j) x p^(j)
 *   b = y^(k+1) - sum_{j=1..k} C(k,j) J_t^(j) q^(k+1-j)
 *   q^(k+1) = pinv b, or (r > m) with z = K (q_ref - q) (k = 0), -K q^(k):
 *     r_k = z + sum_{j=1..k} C(k,j) J_t^(j)T lam^(j'),  c = b - J_t r_k,
 *     lam^(k) = (J_t J_t^T)^-1 c,  q^(k+1) = pinv c + r_k
 *   V_i^(k) = V_p^(k) + sum_j C(k,j) q_i^(k+1-j) Y_i^(j),  Y_i^(k+1) = sum_j C(k,j) [V_p^(j), Y_i^(k-j)]
 *   p^(k+1) = v^(k) + sum_j C(k,j) w^(j) x p^(k-j)   (the link body's V) */
#include "kernel.h"

typedef struct {
    int r, m;              /* path joints, task rows */
    const int32_t *path;   /* bodies from the root to the link's */
    double TR[9], Tp[3];   /* the link frame in its body */
    double base[3], unit;  /* a pose task's condition number: its rows at base, in unit */
    int balanced;          /* ... where that moves them (base not 0 or unit not 1) */
} Task;

static inline void vcross3(const vd *a, const vd *b, vd *out) { vcross(a, b, out); }

/* Spatial screws S[r][6] of the path and the link pose R[9], p[3] at q (Q[i] = q_i) */
static void path_kinematics(const Consts *c, const Task *t, const vd *Q, AdjointV *Ai, vd *S,
                            vd *R, vd *p) {
    for (int x = 0; x < t->r; x++) {
        const int i = t->path[x];
        if (x == 0) hk_joint_adjoint(c, i, Q[i], &Ai[0]);
        else {
            AdjointV Ad;
            hk_joint_adjoint(c, i, Q[i], &Ad);
            hk_compose(&Ad, &Ai[x - 1], &Ai[x]);
        }
        hk_spatial_screw(&Ai[x], c->m->X + 6 * i, S + 6 * x);
    }
    vd Rb[9], pb[3];
    hk_pose(&Ai[t->r - 1], Rb, pb);
    for (int r = 0; r < 3; r++) {
        for (int k = 0; k < 3; k++)
            R[3 * r + k] = Rb[3 * r] * t->TR[k] + Rb[3 * r + 1] * t->TR[3 + k] + Rb[3 * r + 2] * t->TR[6 + k];
        p[r] = Rb[3 * r] * t->Tp[0] + Rb[3 * r + 1] * t->Tp[1] + Rb[3 * r + 2] * t->Tp[2] + pb[r];
    }
}

/* The task Jacobian's first part Jt[m][r] at order 0 */
static void task_jacobian(const Task *t, const vd *S, const vd *p, vd *Jt) {
    const int r = t->r;
    for (int x = 0; x < r; x++) {
        const vd *Sx = S + 6 * x;
        if (t->m == 6) {
            for (int e = 0; e < 6; e++) Jt[e * r + x] = Sx[e];
        } else {
            vd wp[3];
            vcross3(Sx, p, wp);
            for (int e = 0; e < 3; e++) Jt[e * r + x] = Sx[3 + e] + wp[e];
        }
    }
}

typedef long long vl __attribute__((vector_size(LANES * sizeof(double))));

static inline vd vsqrt(vd x) {
    vd y;
    for (int l = 0; l < LANES; l++) y[l] = __builtin_sqrt(x[l]);
    return y;
}

static inline vd vselect(vl mask, vd a, vd b) { return (vd)(((vl)a & mask) | ((vl)b & ~mask)); }

/* One-sided Jacobi on B[rows][cols] (rows >= cols): B <- W = B V (orthogonal columns),
 * V[cols][cols], s[cols] = |w_j|. Columns a, b rotate by the angle that makes them
 * orthogonal, cyclically, until every pair is, to rounding (rows x eps of their norms). */
static void jacobi_svd(vd *B, int rows, int cols, vd *V, vd *s) {
    const double tol = rows * __DBL_EPSILON__;
    for (int a = 0; a < cols; a++)
        for (int b = 0; b < cols; b++) V[a * cols + b] = (vd){0} + (a == b ? 1.0 : 0.0);
    for (int sweep = 0; sweep < 60; sweep++) {
        vl rotated = (vl){0};
        for (int a = 0; a < cols - 1; a++)
            for (int b = a + 1; b < cols; b++) {
                vd al = (vd){0}, be = (vd){0}, ga = (vd){0};
                for (int k = 0; k < rows; k++) {
                    const vd x = B[k * cols + a], y = B[k * cols + b];
                    al += x * x;
                    be += y * y;
                    ga += x * y;
                }
                const vd bound = tol * vsqrt(al * be);
                const vl skip = (ga < bound) & (-ga < bound);
                const vd zeta = (be - al) / (2.0 * ga);
                const vd az = vselect(zeta < 0, -zeta, zeta);
                vd tn = 1.0 / (az + vsqrt(1.0 + zeta * zeta));
                tn = vselect(zeta < 0, -tn, tn);
                const vd c = 1.0 / vsqrt(1.0 + tn * tn);
                const vd cs = vselect(skip, (vd){0} + 1.0, c), sn = vselect(skip, (vd){0}, c * tn);
                rotated |= ~skip;
                for (int k = 0; k < rows; k++) {
                    const vd x = B[k * cols + a], y = B[k * cols + b];
                    B[k * cols + a] = cs * x - sn * y;
                    B[k * cols + b] = sn * x + cs * y;
                }
                for (int k = 0; k < cols; k++) {
                    const vd x = V[k * cols + a], y = V[k * cols + b];
                    V[k * cols + a] = cs * x - sn * y;
                    V[k * cols + b] = sn * x + cs * y;
                }
            }
        int any = 0;
        for (int l = 0; l < LANES; l++) any |= rotated[l] != 0;
        if (!any) break;
    }
    for (int a = 0; a < cols; a++) {
        vd n2 = (vd){0};
        for (int k = 0; k < rows; k++) n2 += B[k * cols + a] * B[k * cols + a];
        s[a] = vsqrt(n2);
    }
}

/* pinv(J_t) [r][m], (J_t J_t^T)^-1 [m][m] (r >= m; may be NULL) and the condition number of
 * Jt[m][r]; cutoff > 0: singular values below cutoff x the largest count as zero */
static vd factor(const Task *t, const vd *Jt, double cutoff, vd *pinv, vd *invA) {
    const int r = t->r, m = t->m, wide = r >= m, rows = wide ? r : m, cols = wide ? m : r;
    vd B[rows * cols], V[cols * cols], s[cols], w2[cols], smax = (vd){0}, smin, cond = (vd){0};
    for (int e = 0; e < m; e++)
        for (int x = 0; x < r; x++) {
            if (wide) B[x * cols + e] = Jt[e * r + x];
            else B[e * cols + x] = Jt[e * r + x];
        }
    jacobi_svd(B, rows, cols, V, s);
    smin = s[0];
    for (int j = 0; j < cols; j++)
        for (int l = 0; l < LANES; l++) {
            smax[l] = s[j][l] > smax[l] ? s[j][l] : smax[l];
            smin[l] = s[j][l] < smin[l] ? s[j][l] : smin[l];
        }
    for (int l = 0; l < LANES; l++) cond[l] = smin[l] > 0 ? smax[l] / smin[l] : INFINITY;
    for (int j = 0; j < cols; j++)
        for (int l = 0; l < LANES; l++)
            w2[j][l] = cutoff > 0 && !(s[j][l] > cutoff * smax[l]) ? 0.0 : 1.0 / (s[j][l] * s[j][l]);
    /* wide: pinv = W diag(w2) V^T; else pinv = V diag(w2) W^T; W = B */
    for (int x = 0; x < r; x++)
        for (int e = 0; e < m; e++) {
            vd acc = (vd){0};
            for (int j = 0; j < cols; j++)
                acc += wide ? B[x * cols + j] * w2[j] * V[e * cols + j]
                            : V[x * cols + j] * w2[j] * B[e * cols + j];
            pinv[x * m + e] = acc;
        }
    if (invA)
        for (int a = 0; a < m; a++)
            for (int b = 0; b < m; b++) {
                vd acc = (vd){0};
                for (int j = 0; j < cols; j++) acc += V[a * cols + j] * w2[j] * V[b * cols + j];
                invA[a * m + b] = acc;
            }
    return cond;
}

/* The condition number of a pose task's Jt[6][r] with its translational rows the velocity of
 * the robot's base point c = t->base, v + w x c, in the arm's length unit t->unit (numpy's
 * task_condition, ik.py's base_point and length_unit): about the root's origin, in metres,
 * it grows with the arm's size and the base's distance from that origin (the iiwa mounted
 * 3 m up: 105 against 10.3 on the ground) */
static vd balanced_condition(const Task *t, const vd *Jt) {
    const int r = t->r;
    vd B[6 * r], pinv[6 * r], c[3], wc[3];
    for (int a = 0; a < 3; a++) c[a] = (vd){0} + t->base[a];
    for (int x = 0; x < r; x++) {
        const vd w[3] = {Jt[x], Jt[r + x], Jt[2 * r + x]};
        vcross3(w, c, wc);
        for (int a = 0; a < 3; a++) {
            B[a * r + x] = Jt[a * r + x];
            B[(3 + a) * r + x] = (Jt[(3 + a) * r + x] + wc[a]) / t->unit;
        }
    }
    return factor(t, B, 0.0, pinv, NULL);
}

/* The Newton step pinv(J_t) e by the normal equations of the smaller Gram matrix (r >= m:
 * J_t^T (J_t J_t^T)^-1 e; r < m: (J_t^T J_t)^-1 J_t^T e) with Cholesky: what the SVD gives
 * where J_t is well conditioned. Returns 0 (and leaves dq) where a pivot falls below 1e-12
 * of the Gram matrix's largest diagonal entry (cond J_t > ~1e6) in any lane: the caller
 * takes the SVD then. */
static int gram_step(const Task *t, const vd *Jt, const vd *e, vd *dq) {
    const int r = t->r, m = t->m, wide = r >= m, g = wide ? m : r;
    vd G[g * g], y[g], dmax = (vd){0};
    for (int a = 0; a < g; a++)
        for (int b = 0; b <= a; b++) {
            vd acc = (vd){0};
            if (wide) for (int x = 0; x < r; x++) acc += Jt[a * r + x] * Jt[b * r + x];
            else for (int k = 0; k < m; k++) acc += Jt[k * r + a] * Jt[k * r + b];
            G[a * g + b] = acc;
        }
    for (int a = 0; a < g; a++) {
        for (int l = 0; l < LANES; l++) dmax[l] = G[a * g + a][l] > dmax[l] ? G[a * g + a][l] : dmax[l];
        vd acc = (vd){0};   /* the right-hand side: e, or J_t^T e */
        if (wide) acc = e[a];
        else for (int k = 0; k < m; k++) acc += Jt[k * r + a] * e[k];
        y[a] = acc;
    }
    for (int j = 0; j < g; j++) {           /* G = L L^T in place (lower), L_jj stored inverted */
        vd d = G[j * g + j];
        for (int c = 0; c < j; c++) d -= G[j * g + c] * G[j * g + c];
        for (int l = 0; l < LANES; l++)
            if (!(d[l] > 1e-12 * dmax[l])) return 0;
        const vd inv = 1.0 / vsqrt(d);
        G[j * g + j] = inv;
        for (int i = j + 1; i < g; i++) {
            vd x = G[i * g + j];
            for (int c = 0; c < j; c++) x -= G[i * g + c] * G[j * g + c];
            G[i * g + j] = x * inv;
        }
    }
    for (int i = 0; i < g; i++) {           /* L z = y, L^T w = z */
        for (int j = 0; j < i; j++) y[i] -= G[i * g + j] * y[j];
        y[i] *= G[i * g + i];
    }
    for (int i = g - 1; i >= 0; i--) {
        for (int j = i + 1; j < g; j++) y[i] -= G[j * g + i] * y[j];
        y[i] *= G[i * g + i];
    }
    for (int x = 0; x < r; x++) {
        if (!wide) { dq[x] = y[x]; continue; }
        vd acc = (vd){0};
        for (int a = 0; a < m; a++) acc += Jt[a * r + x] * y[a];
        dq[x] = acc;
    }
    return 1;
}

static int setup(const HModel *md, int64_t N, int r, const int32_t *path, const double *T,
                 int m, Task *t) {
    t->base[0] = t->base[1] = t->base[2] = 0.0;
    t->unit = 1.0;
    t->balanced = 0;
    int status = hk_check(md, N, 1, 1, 0, -1, -1);
    if (status) return status;
    if (r < 1 || r > md->n || (m != 3 && m != 6)) return HK_SIZE;
    for (int x = 0; x < r; x++)
        if (path[x] < 0 || path[x] >= md->n || md->parent[path[x]] != (x ? path[x - 1] : -1))
            return HK_MODEL;
    t->r = r;
    t->m = m;
    t->path = path;
    for (int a = 0; a < 3; a++) {
        for (int b = 0; b < 3; b++) t->TR[3 * a + b] = T[4 * a + b];
        t->Tp[a] = T[4 * a + 3];
    }
    return HK_OK;
}

/* A pose task's condition number at base[3] in unit (> 0), Task.balanced where that moves
 * its rows (a position task's rows are the link point's: nothing to move) */
static int balance(Task *t, const double *base, double unit) {
    if (!(unit > 0) || !isfinite(unit)) return HK_SIZE;
    for (int a = 0; a < 3; a++) t->base[a] = base[a];
    t->unit = unit;
    t->balanced = t->m == 6 && (unit != 1.0 || base[0] != 0.0 || base[1] != 0.0 ||
                                base[2] != 0.0);
    return HK_OK;
}

/* The task error e[m] of the link at Q against the targets Rt[9] (pose) and pt[3] */
static void pose_error(const Consts *c, const Task *t, const vd *Q, const vd *Rt, const vd *pt,
                       AdjointV *Ai, vd *S, vd *p, vd *err) {
    vd R[9];
    path_kinematics(c, t, Q, Ai, S, R, p);
    const int m = t->m;
    for (int a = 0; a < 3; a++) err[(m == 6 ? 3 : 0) + a] = pt[a] - p[a];
    if (m == 6) {   /* w = log(R_d R^T), v = dp - w x p */
        vd DR[9], w[3] = {0}, wp[3];
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                DR[3 * a + b] = Rt[3 * a] * R[3 * b] + Rt[3 * a + 1] * R[3 * b + 1] + Rt[3 * a + 2] * R[3 * b + 2];
        rotation_log(DR, w);
        vcross3(w, p, wp);
        for (int a = 0; a < 3; a++) { err[a] = w[a]; err[3 + a] -= wp[a]; }
    }
}

/* Per-call work space of the lane-group steps below */
typedef struct {
    vd *Q, *S, *Jt, *pinv, *step, *Y, *V, *invA, *lam, *yv, *out, *P;
    AdjointV *Ai;
} Work;

static void work_free(Work *w) {
    free(w->Q); free(w->S); free(w->Jt); free(w->pinv); free(w->step); free(w->Y); free(w->V);
    free(w->invA); free(w->lam); free(w->yv); free(w->out); free(w->P); free(w->Ai);
}

/* for n joints, r on the path, m task rows and D1 - 1 rates */
static int work_alloc(Work *w, int n, int r, int m, int D1) {
    w->Q = hk_alloc(sizeof(vd) * n);
    w->S = hk_alloc(sizeof(vd) * 6 * r);
    w->Jt = hk_alloc(sizeof(vd) * m * r * D1);
    w->pinv = hk_alloc(sizeof(vd) * m * r);
    w->step = hk_alloc(sizeof(vd) * r);
    w->Y = hk_alloc(sizeof(vd) * 6 * r * (D1 + 1));
    w->V = hk_alloc(sizeof(vd) * 6 * r * D1);
    w->invA = hk_alloc(sizeof(vd) * m * m);
    w->lam = hk_alloc(sizeof(vd) * m * D1);
    w->yv = hk_alloc(sizeof(vd) * m * D1);
    w->out = hk_alloc(sizeof(vd) * n * D1);
    w->P = hk_alloc(sizeof(vd) * 3 * (D1 + 1));
    w->Ai = hk_alloc(sizeof(AdjointV) * r);
    return w->Q && w->S && w->Jt && w->pinv && w->step && w->Y && w->V && w->invA && w->lam
           && w->yv && w->out && w->P && w->Ai ? HK_OK : HK_NOMEM;
}

/* Newton of one lane group from w->Q (in place) to the targets Rt[9] (pose) and pt[3]: at
 * most `steps` steps, until the group's largest step is below 1e-14 (1 + its largest |q|);
 * emax = max |e| at the result. */
static void newton_group(const Consts *c, const Task *t, Work *w, const vd *Rt, const vd *pt,
                         int steps, vd *emax) {
    const int n = c->n, r = t->r, m = t->m;
    vd p[3], e[6];
    for (int it = 0;; it++) {
        pose_error(c, t, w->Q, Rt, pt, w->Ai, w->S, p, e);
        if (it == steps) break;
        task_jacobian(t, w->S, p, w->Jt);
        if (!gram_step(t, w->Jt, e, w->step)) {
            factor(t, w->Jt, 1e-15, w->pinv, NULL);
            for (int x = 0; x < r; x++) {
                w->step[x] = (vd){0};
                for (int a = 0; a < m; a++) w->step[x] += w->pinv[x * m + a] * e[a];
            }
        }
        double big = 0, qbig = 0;
        for (int x = 0; x < r; x++) w->Q[t->path[x]] += w->step[x];
        for (int l = 0; l < LANES; l++) {
            for (int x = 0; x < r; x++) big = fmax(big, fabs(w->step[x][l]));
            for (int i = 0; i < n; i++) qbig = fmax(qbig, fabs(w->Q[i][l]));
        }
        if (big <= 1e-14 * (1.0 + qbig)) {
            pose_error(c, t, w->Q, Rt, pt, w->Ai, w->S, p, e);
            break;
        }
    }
    *emax = (vd){0};
    for (int a = 0; a < m; a++)
        for (int l = 0; l < LANES; l++) (*emax)[l] = fmax((*emax)[l], fabs(e[a][l]));
}

/* Newton from q[N][n] to the targets Rd[N][9] (pose, m = 6; NULL for m = 3) and pd[N][3]:
 * at most `steps` steps, each lane group until its largest step is below 1e-14 (1 + its
 * largest |q|); q_out[N][n] (the joints off the path unchanged) and err[N] = max |e| at
 * q_out. */
int hodyn_ik_newton(const HModel *md, int64_t N, const double *q, int r, const int32_t *path,
                    const double *T, int m, const double *Rd, const double *pd, int steps,
                    double *q_out, double *err) {
    Task t;
    int status = setup(md, N, r, path, T, m, &t);
    if (status) return status;
    if ((m == 6 && !Rd) || steps < 0) return HK_SIZE;
    const int n = md->n;
    Consts c;
    if (hk_consts(md, &c)) return HK_NOMEM;
    Work w;
    if ((status = work_alloc(&w, n, r, m, 1))) goto done;
    int64_t lane_s[LANES];
    vd Rt[9] = {0}, pt[3] = {0}, emax;
    for (int64_t s0 = 0; s0 < N; s0 += LANES) {
        hk_lanes(s0, N, lane_s);
        hk_gather(q, n, lane_s, n, w.Q);
        hk_gather(pd, 3, lane_s, 3, pt);
        if (m == 6) hk_gather(Rd, 9, lane_s, 9, Rt);
        newton_group(&c, &t, &w, Rt, pt, steps, &emax);
        hk_scatter(w.Q, n, s0, N, n, q_out);
        hk_scatter(&emax, 1, s0, N, 1, err);
    }
done:
    work_free(&w);
    hk_free_consts(&c);
    return status;
}

/* Algorithm 2 on one lane group at w->Q for the task rates w->yv[D][m]: w->out[D + 1][n]
 * (q, then the path joints' rates; the others 0) and the condition numbers cn */
static void rates_group(const Consts *c, const Task *t, Work *w, int D, const double *qref,
                        double gain, vd *cn) {
    const int n = c->n, r = t->r, m = t->m, D1 = D + 1, redundant = r > m;
    vd *Y = w->Y, *V = w->V, *Jt = w->Jt, *lam = w->lam, *out = w->out, *P = w->P;
    vd R[9], tmp[6];
#define YX(x, k) (Y + 6 * ((size_t)(x) * (D1 + 1) + (k)))
#define VX(x, k) (V + 6 * ((size_t)(x) * D1 + (k)))
#define JT(k) (Jt + (size_t)(k) * m * r)
#define QK(k, i) out[(size_t)(k) * n + (i)]
    path_kinematics(c, t, w->Q, w->Ai, w->S, R, P);
    memset(out, 0, sizeof(vd) * n * D1);
    for (int i = 0; i < n; i++) QK(0, i) = w->Q[i];
    for (int x = 0; x < r; x++) memcpy(YX(x, 0), w->S + 6 * x, sizeof(vd) * 6);
    task_jacobian(t, w->S, P, JT(0));
    *cn = factor(t, JT(0), 0.0, w->pinv, redundant ? w->invA : NULL);
    if (t->balanced) *cn = balanced_condition(t, JT(0));
    for (int k = 0; k < D; k++) {
        vd *Jk = JT(k), b[m], rr[r], cc[m], qk[r];
        if (k) {                             /* J_t^(k) */
            for (int x = 0; x < r; x++) {
                const vd *Yk = YX(x, k);
                if (m == 6) {
                    for (int e = 0; e < 6; e++) Jk[e * r + x] = Yk[e];
                    continue;
                }
                vcross3(Yk, P, tmp);
                for (int e = 0; e < 3; e++) Jk[e * r + x] = Yk[3 + e] + tmp[e];
                for (int j = 1; j <= k; j++) {
                    vcross3(YX(x, k - j), P + 3 * j, tmp);
                    for (int e = 0; e < 3; e++) Jk[e * r + x] += BINOM[k][j] * tmp[e];
                }
            }
        }
        for (int a = 0; a < m; a++) {        /* b */
            b[a] = w->yv[k * m + a];
            for (int j = 1; j <= k; j++)
                for (int x = 0; x < r; x++)
                    b[a] -= BINOM[k][j] * JT(j)[a * r + x] * QK(k + 1 - j, t->path[x]);
        }
        if (redundant) {
            for (int x = 0; x < r; x++) {
                const int i = t->path[x];
                rr[x] = (k == 0 ? qref[i] - QK(0, i) : -QK(k, i)) * gain;
                for (int j = 1; j <= k; j++)
                    for (int a = 0; a < m; a++)
                        rr[x] += BINOM[k][j] * JT(j)[a * r + x] * lam[(k - j) * m + a];
            }
            for (int a = 0; a < m; a++) {
                cc[a] = b[a];
                for (int x = 0; x < r; x++) cc[a] -= JT(0)[a * r + x] * rr[x];
            }
            for (int a = 0; a < m; a++) {
                vd acc = (vd){0};
                for (int e = 0; e < m; e++) acc += w->invA[a * m + e] * cc[e];
                lam[k * m + a] = acc;
            }
            for (int x = 0; x < r; x++) {
                vd acc = (vd){0};
                for (int a = 0; a < m; a++) acc += w->pinv[x * m + a] * cc[a];
                qk[x] = acc + rr[x];
            }
        } else {
            for (int x = 0; x < r; x++) {
                vd acc = (vd){0};
                for (int a = 0; a < m; a++) acc += w->pinv[x * m + a] * b[a];
                qk[x] = acc;
            }
        }
        for (int x = 0; x < r; x++) QK(k + 1, t->path[x]) = qk[x];
        for (int x = 0; x < r; x++) {        /* forward kinematics of order k, (6), (9) */
            const int i = t->path[x];
            vd *Vk = VX(x, k), *Yn = YX(x, k + 1);
            for (int e = 0; e < 6; e++) {
                Vk[e] = x ? VX(x - 1, k)[e] : (vd){0};
                Yn[e] = (vd){0};
            }
            for (int j = 0; j <= k; j++) {
                const vd wk = BINOM[k][j] * QK(k + 1 - j, i);
                for (int e = 0; e < 6; e++) Vk[e] += wk * YX(x, j)[e];
                if (x) {
                    vad(VX(x - 1, j), YX(x, k - j), tmp);
                    for (int e = 0; e < 6; e++) Yn[e] += BINOM[k][j] * tmp[e];
                }
            }
        }
        vd *Pn = P + 3 * (k + 1);            /* the link origin's p^(k+1) */
        for (int e = 0; e < 3; e++) Pn[e] = VX(r - 1, k)[3 + e];
        for (int j = 0; j <= k; j++) {
            vcross3(VX(r - 1, j), P + 3 * (k - j), tmp);
            for (int e = 0; e < 3; e++) Pn[e] += BINOM[k][j] * tmp[e];
        }
    }
#undef YX
#undef VX
#undef JT
#undef QK
}

/* q[N][n]; y[N][D][m]: the task rates y', ..., y^(D); qref[n] and gain (r > m: the posture
 * term); outputs qs[N][D + 1][n] (q, then the path joints' rates; the others 0), cond[N] */
int hodyn_ik_rates(const HModel *md, int64_t N, const double *q, int r, const int32_t *path,
                   const double *T, int m, const double *base, double unit, int D,
                   const double *y, const double *qref, double gain, double *qs,
                   double *cond) {
    Task t;
    int status = setup(md, N, r, path, T, m, &t);
    if (!status) status = balance(&t, base, unit);
    if (status) return status;
    if (D < 0 || D + 1 > MAXK || r < m || (r > m && !qref)) return HK_SIZE;
    const int n = md->n, D1 = D + 1;
    Consts c;
    if (hk_consts(md, &c)) return HK_NOMEM;
    Work w;
    if ((status = work_alloc(&w, n, r, m, D1))) goto done;
    int64_t lane_s[LANES];
    vd cn;
    for (int64_t s0 = 0; s0 < N; s0 += LANES) {
        hk_lanes(s0, N, lane_s);
        hk_gather(q, n, lane_s, n, w.Q);
        if (D) hk_gather(y, (int64_t)D * m, lane_s, (int64_t)D * m, w.yv);
        rates_group(&c, &t, &w, D, qref, gain, &cn);
        hk_scatter(w.out, (int64_t)n * D1, s0, N, (int64_t)n * D1, qs);
        hk_scatter(&cn, 1, s0, N, 1, cond);
    }
done:
    work_free(&w);
    hk_free_consts(&c);
    return status;
}

/* How many of the rates q', ..., q^(D) at condition number c are reliable (ik.py:
 * reliable_orders): derivative k loses digits like c^k, reliable while eps c^k <= 1e-6 */
static int reliable(double c, int D) {
    const double eps = 2.220446049250313e-16;
    double k = floor(log(1e-6 / eps) / log(fmax(c, 1.0 + eps)));
    return k < 0 || k != k ? 0 : (k > D ? D : (int)k);
}

/* A redundant arm's positions (r > m) integrated from their rates, lane group after lane
 * group of consecutive samples (ik.py: InverseKinematics._integrate, the reference; this is
 * its fixed point on groups of LANES samples, in plain passes):
 *
 *   guess: the Taylor expansion of the last solved sample (`last` [D + 1][n] at t_last, its
 *     condition number cond_last), with q^(D+1) ~ (q^(D) - q^(D)_before) / (t_last - t_before)
 *     when the sample before it is given (`before`, NULL: none);
 *   a pass: the rates at the group's q (Algorithm 2), the steps between consecutive samples
 *     by two-point Hermite quadrature of q' with the derivatives reliable at both ends
 *     (weights[d][j]: hermite_weights(d), row d of D), summed from the last sample, then
 *     projected onto the task targets by Newton (newton_steps);
 *   until the largest change of q is at most (1 + max |q|) max(1e-12, 100 eps cond) plus a
 *     tenth of the quadrature's estimated error (err_const[d]: quadrature_error's C_d);
 *     the rates are then taken at the projected q.
 *
 * Stops at the first group it cannot finish (a pose error above `tolerance` after Newton, a
 * joint of a group of several samples moved more than `jump` from the guess in the first
 * pass, or no convergence in `passes` passes):
 * *done = the samples solved (qs[*done][D + 1][n], cond[*done]); ik.py goes on from there. */
int hodyn_ik_integrate(const HModel *md, int64_t N, int r, const int32_t *path,
                       const double *T, int m, const double *base, double unit, int D,
                       const double *y, const double *Rd,
                       const double *pd, const double *ts, const double *qref, double gain,
                       const double *last, double t_last, double cond_last,
                       const double *before, double t_before, const double *weights,
                       const double *err_const, int newton_steps, int passes,
                       double tolerance, double jump, double *qs, double *cond,
                       int64_t *done) {
    Task t;
    int status = setup(md, N, r, path, T, m, &t);
    *done = 0;
    if (!status) status = balance(&t, base, unit);
    if (status) return status;
    if (D < 1 || D + 2 > MAXK || r <= m || (m == 6 && !Rd) || passes < 1) return HK_SIZE;
    const int n = md->n, D1 = D + 1;
    const double eps = 2.220446049250313e-16;
    Consts c;
    if (hk_consts(md, &c)) return HK_NOMEM;
    Work w;
    vd *guess = hk_alloc(sizeof(vd) * n), *G = hk_alloc(sizeof(vd) * n);
    double *prev = malloc(sizeof(double) * 2 * D1 * n);   /* last, then before */
    if ((status = work_alloc(&w, n, r, m, D1)) || !guess || !G || !prev) {
        status = status ? status : HK_NOMEM;
        goto done;
    }
    double *lst = prev, *bef = prev + (size_t)D1 * n, tl = t_last, tb = t_before, cl = cond_last;
    int have_before = before != NULL;
    memcpy(lst, last, sizeof(double) * D1 * n);
    if (have_before) memcpy(bef, before, sizeof(double) * D1 * n);
    double fact[MAXK];
    fact[0] = 1;
    for (int k = 1; k < MAXK; k++) fact[k] = fact[k - 1] * k;
    int64_t lane_s[LANES];
    vd Rt[9] = {0}, pt[3] = {0}, emax, cn;
    for (int64_t s0 = 0; s0 < N; s0 += LANES) {
        const int L = N - s0 < LANES ? (int)(N - s0) : LANES;
        hk_lanes(s0, N, lane_s);
        hk_gather(y, (int64_t)D * m, lane_s, (int64_t)D * m, w.yv);
        hk_gather(pd, 3, lane_s, 3, pt);
        if (m == 6) hk_gather(Rd, 9, lane_s, 9, Rt);
        for (int l = 0; l < LANES; l++) {    /* the guess */
            const double h = ts[lane_s[l]] - tl;
            for (int i = 0; i < n; i++) {
                double q = 0, hk = 1;
                for (int k = 0; k <= D; k++, hk *= h) q += lst[k * n + i] * hk / fact[k];
                if (have_before)
                    q += (lst[D * n + i] - bef[D * n + i]) / (tl - tb) * hk / fact[D1];
                w.Q[i][l] = guess[i][l] = q;
            }
        }
        int ok = 0;
        for (int pass = 0; pass < passes && !ok; pass++) {
            rates_group(&c, &t, &w, D, qref, gain, &cn);
            double err = 0, cmax = 0;
            for (int l = 0; l < L; l++) {    /* steps from the sample before, summed */
                const double h = ts[s0 + l] - (l ? ts[s0 + l - 1] : tl);
                const double ca = l ? cn[l - 1] : cl, cb = cn[l];
                const int d = reliable(fmax(ca, cb), D);
                double rate = 0, nxt = 0;
                cmax = fmax(cmax, cb);
                for (int i = 0; i < n; i++) {
                    double step = 0, hj = h;
                    for (int j = 0; j < d; j++, hj *= h) {
                        const double qa = l ? w.out[(j + 1) * n + i][l - 1] : lst[(j + 1) * n + i];
                        const double qb = w.out[(j + 1) * n + i][l];
                        step += weights[d * D + j] * hj * (qa + (j % 2 ? -qb : qb));
                    }
                    G[i][l] = (l ? G[i][l - 1] : lst[i]) + step;
                    const double va = l ? w.out[n + i][l - 1] : lst[n + i];
                    const double da = l ? w.out[d * n + i][l - 1] : lst[d * n + i];
                    rate = fmax(rate, fmax(fabs(va), fabs(w.out[n + i][l])));
                    nxt = fmax(nxt, fabs(w.out[d * n + i][l] - da));
                }
                if (d > 0) {                 /* quadrature_error's term of this step */
                    nxt /= h;
                    const double growth = rate > 0 ? pow(nxt / rate, 1.0 / d) : 0.0;
                    err += err_const[d] * pow(h, 2 * d + 1) * nxt * pow(growth, d);
                }
            }
            for (int l = L; l < LANES; l++)
                for (int i = 0; i < n; i++) G[i][l] = G[i][L - 1];
            vd *Qin = guess;                  /* keep this pass's input for the change */
            for (int i = 0; i < n; i++) { Qin[i] = w.Q[i]; w.Q[i] = G[i]; }
            newton_group(&c, &t, &w, Rt, pt, newton_steps, &emax);
            double change = 0, qbig = 0, moved = 0;
            for (int l = 0; l < L; l++) {
                if (!(emax[l] <= tolerance)) goto stop;
                for (int i = 0; i < n; i++) {
                    change = fmax(change, fabs(w.Q[i][l] - Qin[i][l]));
                    qbig = fmax(qbig, fabs(w.Q[i][l]));
                    if (pass == 0) moved = fmax(moved, change);
                }
            }
            if (pass == 0 && L > 1 && moved > jump) goto stop;
            ok = change <= (1.0 + qbig) * fmax(1e-12, 100 * eps * cmax) + 0.1 * err;
        }
        if (!ok) goto stop;
        rates_group(&c, &t, &w, D, qref, gain, &cn);
        hk_scatter(w.out, (int64_t)n * D1, s0, N, (int64_t)n * D1, qs);
        hk_scatter(&cn, 1, s0, N, 1, cond);
        /* the new last two samples */
        if (L > 1) {
            for (int k = 0; k < D1; k++)
                for (int i = 0; i < n; i++) bef[k * n + i] = w.out[k * n + i][L - 2];
            tb = ts[s0 + L - 2];
        } else {
            memcpy(bef, lst, sizeof(double) * D1 * n);
            tb = tl;
        }
        have_before = 1;
        for (int k = 0; k < D1; k++)
            for (int i = 0; i < n; i++) lst[k * n + i] = w.out[k * n + i][L - 1];
        tl = ts[s0 + L - 1];
        cl = cn[L - 1];
        *done = s0 + L;
    }
stop:
done:
    work_free(&w);
    free(guess); free(G); free(prev);
    hk_free_consts(&c);
    return status;
}
