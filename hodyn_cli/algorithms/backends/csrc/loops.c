/* Closed loops per sample (algorithms/motion/loops.py is the readable reference: Closed's
 * residual, _jacobian, _gap_rate, _newton, _prediction, _derivatives and project;
 * tests/test_loops_kernel.py holds them together), in the same equations, lane group by lane
 * group.
 *
 * The cuts: S = 2L frames (a, b of each loop) at T[s] (4 x 4, its body's frame) on side_body[s]
 * (-1: the root), P path joints path[P] (their bodies' frames: T = I), moves[S][P] = 1 where
 * the path joint moves the side's frame, and R constraint rows, row_loop[R], row_axis[R] (0..2
 * the orientation's, 3..5 the point's). From the forward pass over the bodies on the paths
 * (the root held, as hodyn_contact_frames), the frames' pose jets in root axes, and
 *   gap   c = (log(R_a R_b^T); p_a - p_b)                      (order 0)
 *         c^(k) = ((w_a - w_b)^(k-1); p_a^(k) - p_b^(k)),  skew(w) = R' R^T,
 *         W^(k-1) = sum_j C(k-1,j) R^(j+1) R^(k-1-j)T            (order k >= 1)
 *   J^(k) columns of path joint j (mu = moves_a - moves_b, rho = moves_a p_a - moves_b p_b,
 *         w = R_j X_w, u = R_j X_v, arm = mu p_j - rho):
 *         J_w^(k) = mu w^(k),  J_v^(k) = mu u^(k) + sum_i C(k,i) arm^(i) x w^(k-i).
 *
 * hodyn_loop_kinematics: c (or c^(k)) and J's jets.
 * hodyn_loop_newton: Newton on P c(q) = 0 for the passive joints, q_p <- q_p - (P J_p)^-1 P c,
 *   per sample until a step is below step_tol (each passive joint's in its unit: unit[n] is
 *   every joint's, 1 rad, or the loops' length where it is prismatic, loops.py's
 *   Tolerances; the continuation's steps and the predictions' checks below read the same
 *   units), or one from |P c| <
 *   residual_tol (m) is below `quadratic` x the one before, or |P c| is below residual_tol /
 *   100 (the step it would take is rounding); returns c and J where that last step started if
 *   it was below step_tol (as numpy's; no evaluation more
 *   for them), else (a quadratic stop: a step up to `quadratic` x the one before) at its end,
 *   and a flag per sample: 0 where P J_p is near singular (Hadamard's ratio |det| /
 *   prod(row norms) below `near`): the caller decides those as numpy does. Given the motion
 *   (the samples its rows), hodyn_loop_rates' work follows in the same pass where the flag is
 *   1, at the poses c and J were kept from (Newton's last evaluation's where every lane's
 *   came from it: no pose found again; the positions returned are the step's end).
 * hodyn_loop_predict: Newton's starts between the anchors (their Taylor and Hermite
 *   polynomials) and where they are too far.
 * hodyn_loop_closed, hodyn_loop_between: Closed._closed (the anchors' continuation from the
 *   assembly and their halving levels) and Closed._predicted (the samples between the
 *   anchors) in one call each, from the work of the entry points above (the same numbers).
 * hodyn_loop_rates: the implicit function theorem order by order, q_p^(k) = -(P J_p)^-1 P
 *   c^(k) with q_p^(k) still 0 in c^(k), by a recursion in root axes that goes up one order
 *   at a time (below); and P J's jets to order KJ - 1 (KJ <= D - 1: the caller's need; the
 *   torques of order K read K + 1 of them, the reduced matrices one more).
 * hodyn_loop_project: lambda_r and tau_a of the tree's forces f and their derivatives, order
 *   by order (Leibniz on (P J)^T lambda_r = f):
 *   (P J_p)^T lambda_r^(k) = f_p^(k) - sum_{j>=1} C(k,j) (P J_p^(j))^T lambda_r^(k-j)
 *   tau_a^(k) = f_a^(k) - sum_j C(k,j) (P J_a^(j))^T lambda_r^(k-j)
 * The small r x r systems by Gaussian elimination with partial pivoting, all lanes at once. */
#include "kernel.h"

/* max(a, b) of a running maximum a (never NaN): fmax's answer, b NaN ignored, inlined (libm's
 * fmax is a call per element, ~1% of a closed robot's time) */
static inline double larger(double a, double b) { return b > a ? b : a; }

typedef struct {
    int S, P, R, r;
    const int32_t *side_body, *path, *row_loop, *row_axis, *passive;
    const double *T, *moves, *Pm;   /* T[S][16], moves[S][P], Pm[r][R] */
} Cuts;

typedef struct {   /* one lane group's scratch */
    vd *Q, *V, *Rs, *ps, *Rj, *pj;
    AdjointV *Ad, *Ai;
    uint8_t *need, *passive;   /* [n]: on the cuts' paths; a passive joint (Cuts.passive) */
} Work;

static int cuts_check(const HModel *m, const Cuts *k) {
    if (k->S < 2 || k->S % 2 || k->P < 0 || k->R < 1 || k->r < 1 || k->r > k->R) return HK_SIZE;
    for (int s = 0; s < k->S; s++)
        if (k->side_body[s] < -1 || k->side_body[s] >= m->n) return HK_SIZE;
    for (int x = 0; x < k->P; x++)
        if (k->path[x] < 0 || k->path[x] >= m->n) return HK_SIZE;
    for (int e = 0; e < k->R; e++)
        if (k->row_loop[e] < 0 || 2 * k->row_loop[e] >= k->S || k->row_axis[e] < 0 ||
            k->row_axis[e] > 5)
            return HK_SIZE;
    if (k->passive)
        for (int e = 0; e < k->r; e++)
            if (k->passive[e] < 0 || k->passive[e] >= m->n) return HK_SIZE;
    return HK_OK;
}

/* scratch for jets of length K1 (twists to K1t = max(K1 - 1, 1)) */
static int work_alloc(const HModel *m, const Cuts *k, int K1, Work *w) {
    const int n = m->n, K1t = K1 > 2 ? K1 - 1 : 1;
    w->Q = hk_alloc(sizeof(vd) * (K1t + 1) * n);
    w->V = hk_alloc(sizeof(vd) * 6 * K1t * n);
    w->Rs = hk_alloc(sizeof(vd) * 9 * K1 * k->S);
    w->ps = hk_alloc(sizeof(vd) * 3 * K1 * k->S);
    w->Rj = hk_alloc(sizeof(vd) * 9 * K1 * (k->P ? k->P : 1));
    w->pj = hk_alloc(sizeof(vd) * 3 * K1 * (k->P ? k->P : 1));
    w->Ad = hk_alloc(sizeof(AdjointV) * n);
    w->Ai = hk_alloc(sizeof(AdjointV) * n);
    w->need = calloc(n, 1);
    w->passive = calloc(n, 1);
    if (!w->Q || !w->V || !w->Rs || !w->ps || !w->Rj || !w->pj || !w->Ad || !w->Ai || !w->need ||
        !w->passive)
        return HK_NOMEM;
    if (k->passive)
        for (int e = 0; e < k->r; e++) w->passive[k->passive[e]] = 1;
    for (int s = 0; s < k->S; s++)
        if (k->side_body[s] >= 0)
            for (int i = 0; i < n; i++) w->need[i] |= m->anc[(size_t)k->side_body[s] * n + i];
    for (int x = 0; x < k->P; x++)
        for (int i = 0; i < n; i++) w->need[i] |= m->anc[(size_t)k->path[x] * n + i];
    return HK_OK;
}

static void work_free(Work *w) {
    free(w->Q); free(w->V); free(w->Rs); free(w->ps); free(w->Rj); free(w->pj); free(w->Ad);
    free(w->Ai); free(w->need); free(w->passive);
}

enum { FRESH, AGAIN, POSES, PASSIVE_MOVED };

/* The frames' jets from the lane group's joint jets w->Q ((K1t + 1) n values): the sides' to
 * length Ks, the path joints' to length Kj (0: none). `mode`: FRESH; AGAIN, the positions are
 * the call before's (its poses kept: only the twists are found); POSES, poses alone (Ks, Kj
 * <= 1: Newton's steps); PASSIVE_MOVED, poses alone after only the passive joints moved (the
 * actuated joints' Ad_{C_{i,p}}, their sines and cosines, kept) */
static void frames(const Consts *cs, const Cuts *k, Work *w, int Ks, int Kj, int mode) {
    const int n = cs->n, K1 = Ks > Kj ? Ks : Kj, K1t = K1 > 2 ? K1 - 1 : 1;
    vd zero[6 * K1t];   /* the root held */
    memset(zero, 0, sizeof zero);
    for (int i = 0; i < n; i++) {
        if (!w->need[i]) continue;
        const int par = cs->m->parent[i];
        if (mode == AGAIN) {
            hk_forward_twists(cs, i, K1t, w->Q, zero, w->Ad, w->V);
            continue;
        }
        if (mode == FRESH) hk_forward_body(cs, i, K1t, w->Q, zero, w->Ad, w->V);
        else if (mode == POSES || w->passive[i]) hk_joint_adjoint(cs, i, w->Q[i], &w->Ad[i]);
        if (par < 0) w->Ai[i] = w->Ad[i];
        else hk_compose(&w->Ad[i], &w->Ai[par], &w->Ai[i]);
    }
    for (int s = 0; s < k->S; s++) {
        const double *Tc = k->T + 16 * s;
        vd *Rc = w->Rs + 9 * Ks * s, *pc = w->ps + 3 * Ks * s;
        const int b = k->side_body[s];
        if (b < 0) {   /* on the root: at rest */
            memset(Rc, 0, sizeof(vd) * 9 * Ks);
            memset(pc, 0, sizeof(vd) * 3 * Ks);
            for (int r = 0; r < 3; r++) {
                for (int c = 0; c < 3; c++) Rc[3 * r + c] = (vd){0} + Tc[4 * r + c];
                pc[r] = (vd){0} + Tc[4 * r + 3];
            }
            continue;
        }
        vd Rb[Ks][9], pb[Ks][3];
        hk_pose_jet(&w->Ai[b], w->V + (size_t)6 * K1t * b, Ks, Rb[0], pb[0]);
        for (int d = 0; d < Ks; d++)
            for (int r = 0; r < 3; r++) {
                const vd *x = Rb[d] + 3 * r;
                for (int c = 0; c < 3; c++)
                    Rc[9 * d + 3 * r + c] = x[0] * Tc[c] + x[1] * Tc[4 + c] + x[2] * Tc[8 + c];
                pc[3 * d + r] = pb[d][r] + x[0] * Tc[3] + x[1] * Tc[7] + x[2] * Tc[11];
            }
    }
    for (int x = 0; x < k->P && Kj; x++)
        hk_pose_jet(&w->Ai[k->path[x]], w->V + (size_t)6 * K1t * k->path[x], Kj,
                    w->Rj + 9 * Kj * x, w->pj + 3 * Kj * x);
}

/* c[R] (order 0: the gap; k >= 1: c^(k)) from the sides' jets (length Ks > k) */
static void gap(const Cuts *k, const Work *w, int Ks, int order, vd *c) {
    const int L = k->S / 2;
    for (int i = 0; i < L; i++) {
        const vd *Ra = w->Rs + 9 * Ks * 2 * i, *Rb = Ra + 9 * Ks;
        const vd *pa = w->ps + 3 * Ks * 2 * i, *pb = pa + 3 * Ks;
        vd six[6];
        int angular = 0;
        for (int e = 0; e < k->R; e++)
            angular |= k->row_loop[e] == i && k->row_axis[e] < 3;
        for (int e = 0; e < 3; e++) six[3 + e] = pa[3 * order + e] - pb[3 * order + e];
        if (angular && order == 0) {
            vd M[9];
            for (int r = 0; r < 3; r++)
                for (int q = 0; q < 3; q++)
                    M[3 * r + q] = Ra[3 * r] * Rb[3 * q] + Ra[3 * r + 1] * Rb[3 * q + 1] +
                                   Ra[3 * r + 2] * Rb[3 * q + 2];
            rotation_log(M, six);
        } else if (angular) {
            vd W[9];
            for (int e = 0; e < 9; e++) W[e] = (vd){0};
            for (int f = 0; f < 2; f++) {
                const vd *Rf = f ? Rb : Ra;
                const double sign = f ? -1.0 : 1.0;
                for (int j = 0; j < order; j++) {
                    const vd *X = Rf + 9 * (j + 1), *Y = Rf + 9 * (order - 1 - j);
                    const double cw = sign * BINOM[order - 1][j];
                    for (int r = 0; r < 3; r++)
                        for (int q = 0; q < 3; q++)
                            W[3 * r + q] += cw * (X[3 * r] * Y[3 * q] +
                                                  X[3 * r + 1] * Y[3 * q + 1] +
                                                  X[3 * r + 2] * Y[3 * q + 2]);
                }
            }
            six[0] = W[7]; six[1] = W[2]; six[2] = W[3];
        }
        for (int e = 0; e < k->R; e++)
            if (k->row_loop[e] == i) c[e] = six[k->row_axis[e]];
    }
}

/* J^(d)[K1][R][n] from the frames' jets (sides' length Ks >= K1, path joints' K1): per loop
 * and path joint, the point rows' 3-vector once (its rows take their components) */
static void jacobian(const Consts *cs, const Cuts *k, const Work *w, int Ks, int K1, vd *J) {
    const int n = cs->n, R = k->R, L = k->S / 2;
    memset(J, 0, sizeof(vd) * K1 * R * n);
    for (int x = 0; x < k->P; x++) {
        const int j = k->path[x];
        const double *X = cs->m->X + 6 * j;
        const vd *Rj = w->Rj + 9 * K1 * x, *pj = w->pj + 3 * K1 * x;
        vd wj[K1][3], uj[K1][3], arm[K1][3], v3[K1][3];
        for (int d = 0; d < K1; d++) {
            for (int e = 0; e < 3; e++) {
                const vd *row = Rj + 9 * d + 3 * e;
                wj[d][e] = row[0] * X[0] + row[1] * X[1] + row[2] * X[2];
                uj[d][e] = row[0] * X[3] + row[1] * X[4] + row[2] * X[5];
            }
        }
        for (int i = 0; i < L; i++) {
            const double ma = k->moves[k->P * 2 * i + x], mb = k->moves[k->P * (2 * i + 1) + x];
            const double mu = ma - mb;
            int point = 0;
            for (int e = 0; e < R; e++) point |= k->row_loop[e] == i && k->row_axis[e] >= 3;
            if (point) {
                const vd *pa = w->ps + 3 * Ks * 2 * i, *pb = pa + 3 * Ks;
                for (int d = 0; d < K1; d++)
                    for (int e = 0; e < 3; e++)
                        arm[d][e] = mu * pj[3 * d + e] - ma * pa[3 * d + e] + mb * pb[3 * d + e];
                for (int d = 0; d < K1; d++) {
                    for (int e = 0; e < 3; e++) v3[d][e] = mu * uj[d][e];
                    for (int q = 0; q <= d; q++) {
                        vd t[3];
                        vcross(arm[q], wj[d - q], t);
                        for (int e = 0; e < 3; e++) v3[d][e] += BINOM[d][q] * t[e];
                    }
                }
            }
            for (int e = 0; e < R; e++) {
                if (k->row_loop[e] != i) continue;
                const int axis = k->row_axis[e];
                for (int d = 0; d < K1; d++)
                    J[(d * R + e) * n + j] = axis < 3 ? mu * wj[d][axis] : v3[d][axis - 3];
            }
        }
    }
}

typedef int64_t vl __attribute__((vector_size(LANES * sizeof(int64_t))));   /* lane masks */

/* m ? a : b, lane by lane (m: all bits set or none) */
static inline vd pick(vl m, vd a, vd b) { return (vd)(((vl)a & m) | ((vl)b & ~m)); }

static inline vd vabs(vd x) { return (vd)((vl)x & ((vl){0} + INT64_MAX)); }

/* Gaussian elimination with partial pivoting of A[r][r] (in place: its LU and the row order
 * piv[r], lane by lane), all lanes at once: each lane's pivot row by compares, the swaps by
 * selects (the same operations as lane by lane: the same numbers) */
static void lu(int r, vd *A, vl *piv) {
    for (int i = 0; i < r; i++) piv[i] = (vl){0} + i;
    for (int c = 0; c < r; c++) {
        vl best = (vl){0} + c;
        vd top = vabs(A[r * c + c]);
        for (int i = c + 1; i < r; i++) {   /* (the first largest, as a strict > finds) */
            const vd x = vabs(A[r * i + c]);
            const vl more = x > top;
            best = (best & ~more) | (((vl){0} + i) & more);
            top = pick(more, x, top);
        }
        for (int i = c + 1; i < r; i++) {   /* the lanes whose pivot is row i swap it with c */
            const vl swap = best == i;
            for (int q = 0; q < r; q++) {
                const vd t = A[r * c + q];
                A[r * c + q] = pick(swap, A[r * i + q], t);
                A[r * i + q] = pick(swap, t, A[r * i + q]);
            }
            const vl t = piv[c];
            piv[c] = (piv[i] & swap) | (t & ~swap);
            piv[i] = (t & swap) | (piv[i] & ~swap);
        }
        const vd d = A[r * c + c];
        for (int i = c + 1; i < r; i++) {
            const vd f = A[r * i + c] / d;
            A[r * i + c] = f;
            for (int q = c + 1; q < r; q++) A[r * i + q] -= f * A[r * c + q];
        }
    }
}

/* x = A^-1 b (transpose: A^-T b) from lu()'s factors (x and b apart): the row order applied
 * by selects, the substitutions on all lanes at once */
static void lu_solve(int r, const vd *LU, const vl *piv, int transpose, const vd *b, vd *x) {
    vd y[r];
    if (!transpose) {   /* P A = L U: L U x = P b */
        for (int i = 0; i < r; i++) {
            y[i] = b[0];
            for (int j = 1; j < r; j++) y[i] = pick(piv[i] == j, b[j], y[i]);
            for (int q = 0; q < i; q++) y[i] -= LU[r * i + q] * y[q];
        }
        for (int i = r - 1; i >= 0; i--) {
            vd s = y[i];
            for (int q = i + 1; q < r; q++) s -= LU[r * i + q] * x[q];
            x[i] = s / LU[r * i + i];
        }
    } else {   /* A^T = U^T L^T P: U^T z = b, L^T y = z, x = P^T y */
        vd z[r];
        for (int i = 0; i < r; i++) {
            vd s = b[i];
            for (int q = 0; q < i; q++) s -= LU[r * q + i] * z[q];
            z[i] = s / LU[r * i + i];
        }
        for (int i = r - 1; i >= 0; i--) {
            vd s = z[i];
            for (int q = i + 1; q < r; q++) s -= LU[r * q + i] * y[q];
            y[i] = s;
        }
        for (int j = 0; j < r; j++) {   /* (piv a permutation: one i per lane) */
            x[j] = y[0];
            for (int i = 1; i < r; i++) x[j] = pick(piv[i] == j, y[i], x[j]);
        }
    }
}

#define CUTS_ARGS                                                                              \
    int S, const int32_t *side_body, const double *T, int P, const int32_t *path,           \
        const double *moves, int R, const int32_t *row_loop, const int32_t *row_axis
#define CUTS_INIT(r_, Pm_, passive_)                                                           \
    {S, P, R, r_, side_body, path, row_loop, row_axis, passive_, T, moves, Pm_}

int hodyn_loop_kinematics(const HModel *m, int64_t N, int D, const double *HK_STRIDED qs,
                          int64_t qstride, CUTS_ARGS, int rate, int order,
                          double *HK_NULLABLE c, double *HK_NULLABLE J) {
    const Cuts k = CUTS_INIT(1, NULL, NULL);
    const int K1 = order + 1, Ks = (rate > order ? rate : order) + 1;
    const int Kall = Ks, K1t = Kall > 2 ? Kall - 1 : 1;
    int status = hk_check(m, N, D, K1t + 1, Kall - 1, -1, qstride);
    if (status) return status;
    if ((status = cuts_check(m, &k))) return status;
    if (rate < 0) return HK_SIZE;
    Consts cs;
    if (hk_consts(m, &cs)) return HK_NOMEM;
    Work w;
    vd *Jv = hk_alloc(sizeof(vd) * K1 * R * m->n), cv[R];
    if ((status = work_alloc(m, &k, Kall, &w)) || !Jv) { status = HK_NOMEM; goto done; }
    int64_t lane_s[LANES];
    for (int64_t s0 = 0; s0 < N; s0 += LANES) {
        hk_lanes(s0, N, lane_s);
        hk_gather(qs, qstride, lane_s, (K1t + 1) * m->n, w.Q);
        frames(&cs, &k, &w, Ks, J ? K1 : 0, FRESH);
        if (c) {
            gap(&k, &w, Ks, rate, cv);
            hk_scatter(cv, R, s0, N, R, c);
        }
        if (J) {
            jacobian(&cs, &k, &w, Ks, K1, Jv);
            hk_scatter(Jv, (int64_t)K1 * R * m->n, s0, N, (int64_t)K1 * R * m->n, J);
        }
    }
done:
    work_free(&w);
    free(Jv);
    hk_free_consts(&cs);
    return status;
}

/* P J_p[r][r] and P c[r] of c[R], J[R][n] */
static void kept(const Cuts *k, int n, const vd *c, const vd *J, vd *Jp, vd *Pc) {
    const int r = k->r, R = k->R;
    for (int i = 0; i < r; i++) {
        const double *Pi = k->Pm + R * i;
        Pc[i] = (vd){0};
        for (int e = 0; e < R; e++) Pc[i] += Pi[e] * c[e];
        for (int q = 0; q < r; q++) {
            vd s = (vd){0};
            for (int e = 0; e < R; e++) s += Pi[e] * J[e * n + k->passive[q]];
            Jp[r * i + q] = s;
        }
    }
}

/* PJ[K1][r][n] = P J^(d) of J[K1][R][n]; with off (K1 = 1): max |J - P^T P J| / max |J|
 * (0 where J is 0), how far J's rows leave the kept rows' span */
static void kept_rows(const Cuts *k, int n, int K1, const vd *J, vd *PJ, vd *off) {
    const int r = k->r, R = k->R;
    for (int d = 0; d < K1; d++)
        for (int i = 0; i < r; i++)
            for (int col = 0; col < n; col++) {
                vd s = (vd){0};
                for (int e = 0; e < R; e++) s += k->Pm[R * i + e] * J[(d * R + e) * n + col];
                PJ[(d * r + i) * n + col] = s;
            }
    if (!off) return;
    double big[LANES] = {0}, most[LANES] = {0};   /* (the lanes innermost: vectorized) */
    for (int e = 0; e < R; e++)
        for (int col = 0; col < n; col++) {
            vd back = (vd){0};
            for (int i = 0; i < r; i++) back += k->Pm[R * i + e] * PJ[i * n + col];
            const vd x = J[e * n + col], y = x - back;
            for (int l = 0; l < LANES; l++) {
                big[l] = larger(big[l], fabs(x[l]));
                most[l] = larger(most[l], fabs(y[l]));
            }
        }
    for (int l = 0; l < LANES; l++) off[0][l] = big[l] > 0 ? most[l] / big[l] : 0.0;
}

/* ---- the implicit function theorem, order by order in root axes ------------------------
 * The rates' passes go up one derivative order at a time: in root axes a body's twist V_i =
 * (w; v) (v at the root's origin) is its parent's plus its joint's spatial screw S_i =
 * Ad_{C_i} X_i times q_i', and S_i turns with the parent, S_i' = ad(V_p) S_i, so
 *   V_i^(o) = V_p^(o) + sum_j C(o,j) S_i^(j) q_i^(o-j+1),
 *   S_i^(o) = sum_j C(o-1,j) ad(V_p^(j)) S_i^(o-1-j),
 * and a point p fixed on body b moves with p' = v_b + w_b x p,
 *   p^(o) = v_b^(o-1) + sum_j C(o-1,j) w_b^(j) x p^(o-1-j).
 * Order K needs V to K-1 and p to K with q_p^(K) still 0 (c^(K) = (w_a - w_b)^(K-1), p_a^(K)
 * - p_b^(K)); once q_p^(K) is solved, V^(K-1) and p^(K) are found again. J's columns are the
 * path joints' S_j with the cut points' arms, J_w^(d) = mu w_j^(d), J_v^(d) = mu v_j^(d) -
 * sum_q C(d,q) rho^(q) x w_j^(d-q) (rho = moves_a p_a - moves_b p_b): the same numbers as
 * the frames' jets give (Closed._gap_rate, _jacobian). */
typedef struct { vd *S, *V, *p; int D; } Spatial;   /* S, V [n][D][6]; p [sides][D][3] */

static void twist_order(const Consts *cs, const Work *w, const Spatial *sp, const vd *Qs,
                        int o) {
    const int n = cs->n, D = sp->D;
    for (int i = 0; i < n; i++) {
        if (!w->need[i]) continue;
        const int par = cs->m->parent[i];
        vd *Vi = sp->V + (size_t)6 * (D * i + o), sum[6];   /* (sums in registers: the
                                                             * arrays may alias) */
        const vd *Si = sp->S + (size_t)6 * D * i;
        for (int e = 0; e < 6; e++) sum[e] = par < 0 ? (vd){0} : sp->V[6 * (D * par + o) + e];
        for (int j = 0; j <= o; j++) {
            const vd qd = BINOM[o][j] * Qs[(o - j + 1) * n + i];
            for (int e = 0; e < 6; e++) sum[e] += Si[6 * j + e] * qd;
        }
        for (int e = 0; e < 6; e++) Vi[e] = sum[e];
    }
}

static void screw_order(const Consts *cs, const Work *w, const Spatial *sp, int o) {
    const int n = cs->n, D = sp->D;
    for (int i = 0; i < n; i++) {
        if (!w->need[i]) continue;
        const int par = cs->m->parent[i];
        vd *Si = sp->S + (size_t)6 * D * i, t[6], sum[6] = {0};
        if (par >= 0)   /* (else the root held: a constant screw) */
            for (int j = 0; j < o; j++) {
                vad(sp->V + (size_t)6 * (D * par + j), Si + 6 * (o - 1 - j), t);
                for (int e = 0; e < 6; e++) sum[e] += BINOM[o - 1][j] * t[e];
            }
        for (int e = 0; e < 6; e++) Si[6 * o + e] = sum[e];
    }
}

static void point_order(const Cuts *k, const Spatial *sp, int o) {
    const int D = sp->D;
    for (int s = 0; s < k->S; s++) {
        const int b = k->side_body[s];
        vd *p = sp->p + 3 * D * s, t[3], sum[3] = {0};
        if (b >= 0) {   /* (else on the root: at rest) */
            const vd *V = sp->V + (size_t)6 * D * b;
            for (int e = 0; e < 3; e++) sum[e] = V[6 * (o - 1) + 3 + e];
            for (int j = 0; j < o; j++) {
                vcross(V + 6 * j, p + 3 * (o - 1 - j), t);
                for (int e = 0; e < 3; e++) sum[e] += BINOM[o - 1][j] * t[e];
            }
        }
        for (int e = 0; e < 3; e++) p[3 * o + e] = sum[e];
    }
}

/* V^(o) and p^(o+1), found with q_p^(o+1) = 0, once q_p^(o+1) is known: both are linear in
 * it (the j = 0 term of V_i^(o), C(o,0) S_i q_i^(o+1), passed on to the bodies below; the j =
 * o term of p^(o+1), w_b^(o) x p), so the passive joints' share dV is added (their twist
 * and point recursions are not run again) */
static void passive_order(const Consts *cs, const Cuts *k, const Work *w, const Spatial *sp,
                          const vd *Qs, int o, vd *dV) {
    const int n = cs->n, D = sp->D;
    for (int i = 0; i < n; i++) {   /* (a needed joint's parent is needed: its ancestors) */
        if (!w->need[i]) continue;
        const int par = cs->m->parent[i];
        vd *d = dV + 6 * i, *Vi = sp->V + (size_t)6 * (D * i + o);
        for (int e = 0; e < 6; e++) d[e] = par < 0 ? (vd){0} : dV[6 * par + e];
        if (w->passive[i]) {
            const vd *Si = sp->S + (size_t)6 * D * i, qd = Qs[(o + 1) * n + i];
            for (int e = 0; e < 6; e++) d[e] += Si[e] * qd;
        }
        for (int e = 0; e < 6; e++) Vi[e] += d[e];
    }
    for (int s = 0; s < k->S; s++) {
        const int b = k->side_body[s];
        if (b < 0) continue;   /* on the root: at rest */
        vd *p = sp->p + 3 * D * s, t[3];
        const vd *d = dV + 6 * b;
        vcross(d, p, t);
        for (int e = 0; e < 3; e++) p[3 * (o + 1) + e] += d[3 + e] + t[e];
    }
}

/* One lane group's implicit function theorem: Qs[D][n] (the positions, the actuated joints'
 * derivatives; q_p^(K), K = 1..D-1, found here) with w->Ai the bodies' poses at those
 * positions and A, piv the LU of P J_p there; with PJv[KJ r n] (else NULL), P J^(d), d < KJ <=
 * D - 1, in it (Jv[KJ R n] scratch) */
static void rates_group(const HModel *m, const Consts *cs, const Cuts *k, Work *w,
                        const Spatial *sp, vd *Qs, const vd *A, const vl *piv, int KJ,
                        vd *Jv, vd *PJv) {
    const int n = m->n, D = sp->D, S = k->S, P = k->P, R = k->R, r = k->r, L = S / 2;
    vd known[r], x[r], c[R], dV[6 * n];
    for (int i = 0; i < n; i++)   /* the screws at order 0 */
        if (w->need[i]) hk_spatial_screw(&w->Ai[i], m->X + 6 * i, sp->S + (size_t)6 * D * i);
    for (int s = 0; s < S; s++) {   /* the cut points */
        const double *Tc = k->T + 16 * s;
        vd *p = sp->p + 3 * D * s, Rb[9], pb[3];
        if (k->side_body[s] < 0) {
            for (int e = 0; e < 3; e++) p[e] = (vd){0} + Tc[4 * e + 3];
            continue;
        }
        hk_pose(&w->Ai[k->side_body[s]], Rb, pb);
        for (int e = 0; e < 3; e++)
            p[e] = pb[e] + Rb[3 * e] * Tc[3] + Rb[3 * e + 1] * Tc[7] + Rb[3 * e + 2] * Tc[11];
    }
    for (int K = 1; K < D; K++)   /* (q_p^(K) 0 until it is found: c^(K) its known part) */
        for (int i = 0; i < r; i++) Qs[K * n + k->passive[i]] = (vd){0};
    for (int K = 1; K < D; K++) {
        if (K >= 2) {   /* q_p^(K-1) known: V^(K-2), p^(K-1) with it, then S^(K-1) */
            passive_order(cs, k, w, sp, Qs, K - 2, dV);
            screw_order(cs, w, sp, K - 1);
        }
        twist_order(cs, w, sp, Qs, K - 1);   /* (q_p^(K) still 0) */
        point_order(k, sp, K);
        for (int e = 0; e < R; e++) {
            const int i = k->row_loop[e], axis = k->row_axis[e];
            const int a = k->side_body[2 * i], b = k->side_body[2 * i + 1];
            if (axis >= 3) {
                c[e] = sp->p[3 * (D * 2 * i + K) + axis - 3] -
                       sp->p[3 * (D * (2 * i + 1) + K) + axis - 3];
                continue;
            }
            c[e] = (a < 0 ? (vd){0} : sp->V[6 * (D * a + K - 1) + axis]) -
                   (b < 0 ? (vd){0} : sp->V[6 * (D * b + K - 1) + axis]);
        }
        for (int i = 0; i < r; i++) {
            known[i] = (vd){0};
            for (int e = 0; e < R; e++) known[i] += k->Pm[R * i + e] * c[e];
        }
        lu_solve(r, A, piv, 0, known, x);
        for (int i = 0; i < r; i++) Qs[K * n + k->passive[i]] = -x[i];
    }
    if (!PJv) return;
    const int K1 = KJ;   /* J^(d), d < KJ <= D - 1: S and p to that order are final */
    memset(Jv, 0, sizeof(vd) * K1 * R * n);
    for (int xj = 0; xj < P; xj++) {
        const int j = k->path[xj];
        const vd *Sj = sp->S + (size_t)6 * D * j;
        for (int i = 0; i < L; i++) {
            const double ma = k->moves[P * 2 * i + xj], mb = k->moves[P * (2 * i + 1) + xj];
            const double mu = ma - mb;
            const vd *pa = sp->p + 3 * D * 2 * i, *pb = pa + 3 * D;
            int point = 0;
            for (int e = 0; e < R; e++) point |= k->row_loop[e] == i && k->row_axis[e] >= 3;
            vd v3[K1][3];   /* the point rows' 3-vector once (its rows take their components) */
            if (point) {
                vd rho[K1][3];
                for (int d = 0; d < K1; d++)
                    for (int g = 0; g < 3; g++) rho[d][g] = ma * pa[3 * d + g] - mb * pb[3 * d + g];
                for (int d = 0; d < K1; d++) {
                    for (int g = 0; g < 3; g++) v3[d][g] = mu * Sj[6 * d + 3 + g];
                    for (int q = 0; q <= d; q++) {
                        vd t[3];
                        vcross(rho[q], Sj + 6 * (d - q), t);
                        for (int g = 0; g < 3; g++) v3[d][g] -= BINOM[d][q] * t[g];
                    }
                }
            }
            for (int e = 0; e < R; e++) {
                if (k->row_loop[e] != i) continue;
                const int axis = k->row_axis[e];
                for (int d = 0; d < K1; d++)
                    Jv[(d * R + e) * n + j] = axis < 3 ? mu * Sj[6 * d + axis] : v3[d][axis - 3];
            }
        }
    }
    kept_rows(k, n, K1, Jv, PJv, NULL);
}

/* Qs's derivatives (orders 1..D-1 of the passive joints) and P J's jets PJv[KJ r n] (NULL:
 * not wanted) into qs[N][D][n] and PJ[N][KJ][r][n] at the lane group's samples lane_s (lanes
 * up to `live`); with `positions`, Qs's positions too */
static void rates_scatter(int n, int D, int KJ, const Cuts *k, const vd *Qs, const vd *PJv,
                          const int64_t *lane_s, int live, int positions, double *qs,
                          double *PJ) {
    for (int l = 0; l < live; l++) {
        double *out = qs + (size_t)lane_s[l] * D * n;
        if (positions)
            for (int i = 0; i < n; i++) out[i] = Qs[i][l];
        for (int K = 1; K < D; K++)
            for (int i = 0; i < k->r; i++) out[K * n + k->passive[i]] = Qs[K * n + k->passive[i]][l];
        if (!PJv) continue;
        double *jets = PJ + (size_t)lane_s[l] * KJ * k->r * n;
        for (int e = 0; e < KJ * k->r * n; e++) jets[e] = PJv[e][l];
    }
}

/* qs[N][D][n] in place at the samples rows[M]: q_p^(k), k = 1..D-1, from q and the actuated
 * joints' derivatives and P J_p[M][r][r] there; PJ[N][KJ][r][n] (may be NULL; 1 <= KJ <= D -
 * 1): P J^(d), d < KJ, at those samples */
int hodyn_loop_rates(const HModel *m, int64_t N, int D, double *qs, int64_t M,
                     const int32_t *rows, CUTS_ARGS, int r, const double *Pm,
                     const int32_t *passive, const double *Jp, int KJ,
                     double *HK_NULLABLE PJ) {
    const Cuts k = CUTS_INIT(r, Pm, passive);
    const int n = m->n;
    int status = hk_check(m, N, D, 1, D - 1, -1, (int64_t)D * n);
    if (status) return status;
    if ((status = cuts_check(m, &k))) return status;
    if (M < 0 || (PJ && (KJ < 1 || KJ > D - 1))) return HK_SIZE;
    for (int64_t e = 0; e < M; e++)
        if (rows[e] < 0 || rows[e] >= N) return HK_SIZE;
    if (D < 2) return HK_OK;
    Consts cs;
    if (hk_consts(m, &cs)) return HK_NOMEM;
    Work w;
    vd *Qs = hk_alloc(sizeof(vd) * D * n), *Jv = hk_alloc(sizeof(vd) * D * R * n);
    vd *PJv = hk_alloc(sizeof(vd) * D * r * n);
    Spatial sp = {hk_alloc(sizeof(vd) * 6 * D * n), hk_alloc(sizeof(vd) * 6 * D * n),
                  hk_alloc(sizeof(vd) * 3 * D * S), D};
    if ((status = work_alloc(m, &k, 1, &w)) || !Qs || !Jv || !PJv || !sp.S || !sp.V || !sp.p) {
        status = HK_NOMEM;
        goto done;
    }
    {
    vd A[r * r];
    vl piv[r];
    int64_t lane_e[LANES], lane_s[LANES];
    for (int64_t s0 = 0; s0 < M; s0 += LANES) {
        hk_lanes(s0, M, lane_e);
        for (int l = 0; l < LANES; l++) lane_s[l] = rows[lane_e[l]];
        hk_gather(qs, (int64_t)D * n, lane_s, (int64_t)D * n, Qs);
        hk_gather(Jp, (int64_t)r * r, lane_e, (int64_t)r * r, A);
        lu(r, A, piv);
        for (int i = 0; i < n; i++) {   /* the poses */
            if (!w.need[i]) continue;
            const int par = m->parent[i];
            hk_joint_adjoint(&cs, i, Qs[i], &w.Ad[i]);
            if (par < 0) w.Ai[i] = w.Ad[i];
            else hk_compose(&w.Ad[i], &w.Ai[par], &w.Ai[i]);
        }
        rates_group(m, &cs, &k, &w, &sp, Qs, A, piv, KJ, Jv, PJ ? PJv : NULL);
        rates_scatter(n, D, KJ, &k, Qs, PJ ? PJv : NULL, lane_s,
                      M - s0 < LANES ? M - s0 : LANES, 0, qs, PJ);
    }
    }
done:
    work_free(&w);
    free(Qs); free(Jv); free(PJv); free(sp.S); free(sp.V); free(sp.p);
    hk_free_consts(&cs);
    return status;
}

/* q[N][n] in place; c[N][R], PJ[N][r][n] and off[N] (kept_rows) where the last step started;
 * ok[N]. With qs[Nf][D][n] (else NULL; D >= 2), the samples being its rows[N]: there the
 * positions and the passive joints' derivatives by the implicit function theorem
 * (hodyn_loop_rates' with P J_p and the poses where the last step started, one pass fewer of
 * the poses), and
 * with jets[Nf][KJ][r][n] (else NULL; 1 <= KJ <= D - 1) P J's jets to order KJ - 1, where ok */
/* hodyn_loop_newton's work, its arguments checked (the cuts k with P and the passive joints) */
static int newton_run(const HModel *m, const Cuts *kc, int64_t N, double *q, int iterations,
                      double step_tol, const double *unit, double residual_tol,
                      double quadratic, double near, double *c, double *PJ, double *off,
                      uint8_t *ok, int D, int KJ, double *qs,
                      const int32_t *rows, double *jets) {
    const Cuts k = *kc;
    const int n = m->n, S = k.S, R = k.R, r = k.r;
    const int32_t *passive = k.passive;
    int status = HK_OK;
    const int DQ = qs ? D : 1;
    Consts cs;
    if (hk_consts(m, &cs)) return HK_NOMEM;
    Work w;
    vd *Jv = hk_alloc(sizeof(vd) * R * n), *Qs = hk_alloc(sizeof(vd) * DQ * n);
    vd *JvD = hk_alloc(sizeof(vd) * DQ * R * n), *PJD = hk_alloc(sizeof(vd) * DQ * r * n);
    Spatial sp = {hk_alloc(sizeof(vd) * 6 * DQ * n), hk_alloc(sizeof(vd) * 6 * DQ * n),
                  hk_alloc(sizeof(vd) * 3 * DQ * S), DQ};
    if ((status = work_alloc(m, &k, 1, &w)) || !Jv || !Qs || !JvD || !PJD || !sp.S || !sp.V ||
        !sp.p) {
        status = HK_NOMEM;
        goto done;
    }
    {
    vd cv[R], Jp[r * r], Pc[r], step[r], PJv[r * n], offv[1], cfin[R], Jfin[R * n];
    vl piv[r];
    int64_t lane_s[LANES];
    for (int64_t s0 = 0; s0 < N; s0 += LANES) {
        hk_lanes(s0, N, lane_s);
        memset(w.Q, 0, sizeof(vd) * 2 * n);   /* (the pass reads q' too: 0) */
        hk_gather(q, n, lane_s, n, w.Q);
        /* have_it: the evaluation (1, 2, ...) c and J were kept from, qh the passive joints
         * there: the implicit function theorem's poses (J's), not the step's end */
        int good[LANES], done[LANES], have[LANES], have_it[LANES], evals = 0;
        double before[LANES], qh[r][LANES];
        for (int l = 0; l < LANES; l++)
            good[l] = 1, done[l] = have[l] = have_it[l] = 0, before[l] = INFINITY;
        for (int it = 0; it < iterations; it++) {
            frames(&cs, &k, &w, 1, 1, it ? PASSIVE_MOVED : POSES);
            evals++;
            gap(&k, &w, 1, 0, cv);
            jacobian(&cs, &k, &w, 1, 1, Jv);
            kept(&k, n, cv, Jv, Jp, Pc);
            /* Hadamard's ratio before the factors overwrite P J_p */
            vd norms = (vd){0} + 1.0;
            for (int i = 0; i < r; i++) {
                vd s = (vd){0};
                for (int q2 = 0; q2 < r; q2++) s += Jp[r * i + q2] * Jp[r * i + q2];
                for (int l = 0; l < LANES; l++) norms[l] *= sqrt(s[l]);
            }
            lu(r, Jp, piv);
            lu_solve(r, Jp, piv, 0, Pc, step);
            int all = 1;
            for (int l = 0; l < LANES; l++) {
                if (done[l]) continue;
                double det = 1.0, size = 0.0, res = 0.0;
                for (int i = 0; i < r; i++) det *= Jp[r * i + i][l];
                if (!(fabs(det) / norms[l] >= near)) { good[l] = 0; done[l] = 1; continue; }
                for (int i = 0; i < r; i++) res = larger(res, fabs(Pc[i][l]));
                if (res < 1e-2 * residual_tol) {   /* at the solution already: c and J are its */
                    done[l] = have[l] = 1;
                    have_it[l] = evals;
                    for (int i = 0; i < r; i++) qh[i][l] = w.Q[passive[i]][l];
                    for (int e = 0; e < R; e++) cfin[e][l] = cv[e][l];
                    for (int e = 0; e < R * n; e++) Jfin[e][l] = Jv[e][l];
                    continue;
                }
                double start[r];
                for (int i = 0; i < r; i++) {
                    start[i] = w.Q[passive[i]][l];
                    w.Q[passive[i]][l] -= step[i][l];
                    size = larger(size, fabs(step[i][l]) / unit[passive[i]]);   /* (in its unit) */
                }
                done[l] = size < step_tol || (res < residual_tol && size < quadratic * before[l]);
                if (size < step_tol) {   /* c and J of this step's start (within step_tol), as
                                          * numpy's */
                    have[l] = 1;
                    have_it[l] = evals;
                    for (int i = 0; i < r; i++) qh[i][l] = start[i];
                    for (int e = 0; e < R; e++) cfin[e][l] = cv[e][l];
                    for (int e = 0; e < R * n; e++) Jfin[e][l] = Jv[e][l];
                }
                before[l] = size;
                all &= done[l];
            }
            if (all) break;
        }
        /* where the last step was not below step_tol (a quadratic stop, or the iterations ran
         * out), c and J at its end: one more evaluation */
        int missing = 0;
        for (int l = 0; l < LANES; l++) missing |= !have[l];
        if (missing) {
            frames(&cs, &k, &w, 1, 1, PASSIVE_MOVED);
            evals++;
            gap(&k, &w, 1, 0, cv);
            jacobian(&cs, &k, &w, 1, 1, Jv);
            for (int l = 0; l < LANES; l++) {
                if (have[l]) continue;
                have_it[l] = evals;
                for (int i = 0; i < r; i++) qh[i][l] = w.Q[passive[i]][l];
                for (int e = 0; e < R; e++) cfin[e][l] = cv[e][l];
                for (int e = 0; e < R * n; e++) Jfin[e][l] = Jv[e][l];
            }
        }
        hk_scatter(cfin, R, s0, N, R, c);
        kept_rows(&k, n, 1, Jfin, PJv, offv);
        hk_scatter(PJv, (int64_t)r * n, s0, N, (int64_t)r * n, PJ);
        hk_scatter(offv, 1, s0, N, 1, off);
        for (int l = 0; l < LANES && s0 + l < N; l++) {
            for (int i = 0; i < n; i++) q[(s0 + l) * n + i] = w.Q[i][l];
            ok[s0 + l] = good[l];
        }
        if (!qs) continue;
        /* the implicit function theorem where c and J were kept (the last step's start,
         * within step_tol of the positions found): where every lane kept them from the last
         * evaluation, its poses and (in the loop) P J_p's factors are still here; else the
         * passive joints' poses there again (the actuated joints' kept) */
        int64_t lane_s[LANES];
        for (int l = 0; l < LANES; l++) lane_s[l] = rows[s0 + l < N ? s0 + l : N - 1];
        for (int i = 0; i < n; i++) {   /* (the actuated joints' derivatives alone: the
                                         * positions are Newton's, the passive ones' rates
                                         * are found) */
            Qs[i] = w.Q[i];
            if (w.passive[i]) continue;
            for (int K = 1; K < D; K++)
                for (int l = 0; l < LANES; l++)
                    Qs[K * n + i][l] = qs[lane_s[l] * D * n + K * n + i];
        }
        int last = 1;
        for (int l = 0; l < LANES; l++) last &= have_it[l] == evals;
        if (!last) {
            for (int i = 0; i < r; i++)
                for (int l = 0; l < LANES; l++) w.Q[passive[i]][l] = qh[i][l];
            for (int i = 0; i < n; i++) {
                if (!w.need[i]) continue;
                const int par = m->parent[i];
                if (w.passive[i]) hk_joint_adjoint(&cs, i, w.Q[i], &w.Ad[i]);
                if (par < 0) w.Ai[i] = w.Ad[i];
                else hk_compose(&w.Ad[i], &w.Ai[par], &w.Ai[i]);
            }
        }
        if (!last || missing) {
            kept(&k, n, cfin, Jfin, Jp, Pc);
            lu(r, Jp, piv);
        }
        rates_group(m, &cs, &k, &w, &sp, Qs, Jp, piv, KJ, JvD, jets ? PJD : NULL);
        int64_t live_s[LANES];
        int live = 0;
        for (int l = 0; l < LANES && s0 + l < N; l++)
            if (good[l]) live_s[live++] = l;
        for (int x = 0; x < live; x++) {   /* (the lanes ok: compacted to the front) */
            const int l = (int)live_s[x];
            live_s[x] = lane_s[l];
            if (l == x) continue;
            for (int e = 0; e < D * n; e++) Qs[e][x] = Qs[e][l];
            for (int e = 0; jets && e < KJ * r * n; e++) PJD[e][x] = PJD[e][l];
        }
        rates_scatter(n, D, KJ, &k, Qs, jets ? PJD : NULL, live_s, live, 1, qs, jets);
    }
    }
done:
    work_free(&w);
    free(Jv); free(Qs); free(JvD); free(PJD); free(sp.S); free(sp.V); free(sp.p);
    hk_free_consts(&cs);
    return status;
}

int hodyn_loop_newton(const HModel *m, int64_t N, double *q, CUTS_ARGS, int r, const double *Pm,
                      const int32_t *passive, int iterations, double step_tol,
                      const double *unit, double residual_tol, double quadratic, double near, double *c, double *PJ,
                      double *off, uint8_t *ok, int D, int KJ, int64_t Nf,
                      double *HK_NULLABLE qs, const int32_t *HK_NULLABLE rows,
                      double *HK_NULLABLE jets) {
    const Cuts k = CUTS_INIT(r, Pm, passive);
    int status = hk_check(m, N, 1, 1, 0, -1, -1);
    if (status) return status;
    if ((status = cuts_check(m, &k)) || iterations < 1) return status ? status : HK_SIZE;
    if (qs) {
        if (!rows || D < 2 || D > MAXK || Nf < 1 || (jets && (KJ < 1 || KJ > D - 1)))
            return HK_SIZE;
        for (int64_t e = 0; e < N; e++)
            if (rows[e] < 0 || rows[e] >= Nf) return HK_SIZE;
    }
    return newton_run(m, &k, N, q, iterations, step_tol, unit, residual_tol, quadratic, near, c,
                      PJ, off, ok, D, KJ, qs, rows, jets);
}

/* The Taylor polynomial sum_d q^(d) h^d / d! of at[D][n] into guess[n], and its last term's
 * largest |.| over the joints counted[n] (on_loops), each in its unit[n], in loops.py's
 * _taylor's operations
 * (products and sums apart, not fused: the same numbers as numpy's) */
__attribute__((optimize("fp-contract=off")))
static double taylor_start(const double *at, int D, int n, double h, const uint8_t *counted,
                           const double *unit, double *guess) {
#ifdef __clang__  /* (clang ignores GCC's attribute and contracts by default) */
#pragma STDC FP_CONTRACT OFF
#endif
    double power[MAXK], hk = 1.0, factorial = 1.0, last = 0.0;
    for (int d = 0; d < D; d++, hk *= h, factorial *= d) power[d] = hk / factorial;
    for (int j = 0; j < n; j++) {
        double sum = 0.0;
        for (int d = 0; d < D; d++) sum += power[d] * at[d * n + j];
        guess[j] = sum;
        if (counted[j]) last = larger(last, fabs(power[D - 1] * at[(D - 1) * n + j]) / unit[j]);
    }
    return last;
}

/* counted[n]: the joints on the loops (Closed.on_loops), every joint but the actuated ones
 * active[ma] that move no closure (closing[ma] 0): Newton's start between samples is the
 * passive joints' prediction (the actuated ones start at their own positions), so the
 * predictions' checks count these alone */
static void on_loops(int n, int ma, const int32_t *active, const uint8_t *closing,
                     uint8_t *counted) {
    memset(counted, 1, (size_t)n);
    for (int i = 0; i < ma; i++)
        if (!closing[i]) counted[active[i]] = 0;
}

/* The actuated joints active[ma] of q[M][n] a share of the way from start[M][n] to
 * target[M][ma], start + (target - start) share, as loops.py's _continued (not fused) */
__attribute__((optimize("fp-contract=off")))
static void step_towards(int64_t M, int n, int ma, const int32_t *active, const double *start,
                         const double *target, double share, double *q) {
#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif
    for (int64_t x = 0; x < M; x++)
        for (int i = 0; i < ma; i++) {
            const double s0 = start[x * n + active[i]];
            q[x * n + active[i]] = s0 + (target[x * ma + i] - s0) * share;
        }
}

/* Closed._continued: q[M][n] continued from start[M][n] to the actuated positions
 * target[M][ma] in steps of at most `step` of those that move the loops' closure (closing[ma]
 * 1; each in its unit[n]: the batch's farthest sets their number; the others go along in as
 * many steps), Newton
 * (newton_run) with `between` iterations per step and `iterations` in the last, which with qs
 * goes on to the derivatives at rows[M] (and P J's jets); c, PJ, off, ok of the last. *all_ok
 * = 0 where some step's P J_p was near singular (then the rest is unset) */
static int continued(const HModel *m, const Cuts *k, int64_t M, const double *start,
                     const double *target, int ma, const int32_t *active,
                     const uint8_t *closing, double step, int iterations, int between,
                     double step_tol, const double *unit, double residual_tol,
                     double quadratic, double near,
                     double *q, double *c, double *PJ, double *off, uint8_t *ok, int D, int KJ,
                     double *qs, const int32_t *rows, double *jets, int *all_ok) {
    const int n = m->n;
    double far = 0.0;   /* the largest move of the joints that move the closure, in units */
    for (int64_t x = 0; x < M; x++)
        for (int i = 0; i < ma; i++)
            if (closing[i])
                far = larger(far, fabs(target[x * ma + i] - start[x * n + active[i]]) /
                                  unit[active[i]]);
    const int steps = far / step > 1 ? (int)ceil(far / step) : 1;
    *all_ok = 0;
    memcpy(q, start, sizeof(double) * M * n);
    for (int st = 1; st <= steps; st++) {
        const int last = st == steps;
        step_towards(M, n, ma, active, start, target, (double)st / steps, q);
        const int status = newton_run(m, k, M, q, last ? iterations : between, step_tol, unit,
                                      residual_tol, quadratic, near, c, PJ, off, ok, D, KJ,
                                      last ? qs : NULL, rows, last ? jets : NULL);
        if (status) return status;
        for (int64_t x = 0; x < M; x++)
            if (!ok[x]) return HK_OK;
    }
    *all_ok = 1;
    return HK_OK;
}

static int floor_log2(int64_t x) {
    int b = -1;
    for (; x > 0; x >>= 1) b++;
    return b;
}

/* Closed._closed in one call (its levels' Python and kernel calls were ~0.07 us a sample of
 * the leg's file at order 2): q[N][n] at the actuated positions qa[N][ma] (joints
 * active[ma]), every 2^floor(log2 coarse)-th continued from `reference` (n), then by halving,
 * each level's samples from the one `half` before them (its Taylor polynomial sum_k q^(k)
 * h^k / k! where its derivatives are known, t given, and its last term is at most
 * `taylor_tol`); each batch continued in steps of at most `step` of the actuated joints that
 * move the loops' closure (closing[ma] 1; the batch's farthest sets their number), newton_run with `between` iterations per step and
 * `iterations` in the last, which (with qs, the samples its rows ids[N]) goes on to the
 * derivatives and P J's jets (jets, KJ) as hodyn_loop_newton's; c, PJ, off as there,
 * rated[N] where the derivatives were found. *complete = 0 (the rest unset) where some
 * step's P J_p was near singular: the caller goes step by step (numpy's Newton decides). */
int hodyn_loop_closed(const HModel *m, int64_t N, const double *qa, int ma,
                      const int32_t *active, const uint8_t *closing, const double *reference,
                      int coarse, double step,
                      CUTS_ARGS, int r, const double *Pm, const int32_t *passive, int iterations,
                      int between, double step_tol, const double *unit,
                      double residual_tol, double quadratic,
                      double near, double taylor_tol,
                      const double *HK_NULLABLE t, const int32_t *ids, double *q, double *c,
                      double *PJ, double *off, uint8_t *rated, int D, int KJ, int64_t Nf,
                      double *HK_NULLABLE qs, double *HK_NULLABLE jets, int64_t *complete) {
    const Cuts k = CUTS_INIT(r, Pm, passive);
    const int n = m->n;
    int status = hk_check(m, N, 1, 1, 0, -1, -1);
    *complete = 0;
    if (status) return status;
    if ((status = cuts_check(m, &k))) return status;
    if (iterations < 1 || between < 1 || coarse < 1 || ma < 0 || ma > n || !(step > 0))
        return HK_SIZE;
    for (int i = 0; i < ma; i++)
        if (active[i] < 0 || active[i] >= n) return HK_SIZE;
    if (qs) {
        if (D < 2 || D > MAXK || Nf < 1 || (jets && (KJ < 1 || KJ > D - 1))) return HK_SIZE;
        for (int64_t e = 0; e < N; e++)
            if (ids[e] < 0 || ids[e] >= Nf) return HK_SIZE;
    }
    if (N == 0) { *complete = 1; return HK_OK; }
    double *qb = malloc(sizeof(double) * N * n), *start = malloc(sizeof(double) * N * n);
    double *cb = malloc(sizeof(double) * N * R), *PJb = malloc(sizeof(double) * N * r * n);
    double *offb = malloc(sizeof(double) * N);
    uint8_t *okb = malloc(N);
    int32_t *rows = malloc(sizeof(int32_t) * N);
    int64_t *level = malloc(sizeof(int64_t) * N);
    double *target = malloc(sizeof(double) * N * (ma ? ma : 1));
    if (!qb || !start || !cb || !PJb || !offb || !okb || !rows || !level || !target) {
        status = HK_NOMEM;
        goto done;
    }
    {
    const int taylor = qs && t;
    uint8_t counted[n];
    on_loops(n, ma, active, closing, counted);
    const int bits = floor_log2(coarse), most = floor_log2(N - 1 > 1 ? N - 1 : 1);
    /* the samples solved are `stride` apart; this level's start at `first`, `jump` apart */
    int64_t stride = (int64_t)1 << (bits < most ? bits : most), first = 0, jump = stride;
    for (;;) {
        int64_t M = 0;
        for (int64_t e = first; e < N; e += jump) level[M++] = e;
        for (int64_t x = 0; x < M; x++) {
            const int64_t e = level[x];
            double *s = start + x * n;
            rows[x] = ids[e];
            memcpy(target + x * ma, qa + e * ma, sizeof(double) * ma);
            if (first == 0) memcpy(s, reference, sizeof(double) * n);
            else memcpy(s, q + (e - first) * n, sizeof(double) * n);
            if (first && taylor && rated[e - first]) {   /* its neighbour's Taylor polynomial */
                double guess[n];
                if (taylor_start(qs + (size_t)ids[e - first] * D * n, D, n,
                                 t[ids[e]] - t[ids[e - first]], counted, unit, guess) <=
                    taylor_tol)
                    memcpy(s, guess, sizeof(double) * n);
            }
        }
        int all_ok;
        if ((status = continued(m, &k, M, start, target, ma, active, closing, step, iterations,
                                between, step_tol, unit, residual_tol, quadratic, near, qb, cb, PJb,
                                offb, okb, D, KJ, qs,
                                rows, jets, &all_ok)) || !all_ok)
            goto done;   /* (*complete stays 0) */
        for (int64_t x = 0; x < M; x++) {
            const int64_t e = level[x];
            memcpy(q + e * n, qb + x * n, sizeof(double) * n);
            memcpy(c + e * R, cb + x * R, sizeof(double) * R);
            memcpy(PJ + e * r * n, PJb + x * r * n, sizeof(double) * r * n);
            off[e] = offb[x];
            rated[e] = qs != NULL;
        }
        if (stride == 1) break;
        first = stride / 2;
        jump = stride;
        stride = first;
    }
    *complete = 1;
    }
done:
    free(qb); free(start); free(cb); free(PJb); free(offb); free(okb); free(rows); free(level);
    free(target);
    return status;
}

/* lam[N][K1][C][r] and tau[N][K1][C][m] of f's [K1][C][n] per sample from P J's jets
 * PJ[N][KJ][r][n] (KJ >= K1: the first K1 read); f's sample s, order d at f[s fs + d fk] (its
 * [C][n] contiguous: the tree's torques come order by order, (K1, N, n) transposed, and are
 * read where they lie); active[ma], passive[r] the columns */
int hodyn_loop_project(int64_t N, int K1, int n, int C, int r, int KJ, const double *PJ,
                       const double *f, int64_t fs, int64_t fk, int ma,
                       const int32_t *active, const int32_t *passive, double *lam, double *tau) {
    if (N < 0 || K1 < 1 || K1 > MAXK - 1 || KJ < K1 || n < 1 || C < 1 || r < 1 || ma < 0 ||
        r + ma != n || fs < 0 || fk < 0)
        return HK_SIZE;
    for (int i = 0; i < r; i++)
        if (passive[i] < 0 || passive[i] >= n) return HK_SIZE;
    for (int i = 0; i < ma; i++)
        if (active[i] < 0 || active[i] >= n) return HK_SIZE;
    vd *J = hk_alloc(sizeof(vd) * K1 * r * n), *F = hk_alloc(sizeof(vd) * K1 * C * n);
    vd *Lv = hk_alloc(sizeof(vd) * K1 * C * r), *Tv = hk_alloc(sizeof(vd) * K1 * C * (ma ? ma : 1));
    if (!J || !F || !Lv || !Tv) { free(J); free(F); free(Lv); free(Tv); return HK_NOMEM; }
    vd A[r * r], b[r];
    vl piv[r];
    int64_t lane_s[LANES];
    for (int64_t s0 = 0; s0 < N; s0 += LANES) {
        hk_lanes(s0, N, lane_s);
        hk_gather(PJ, (int64_t)KJ * r * n, lane_s, (int64_t)K1 * r * n, J);
        for (int d = 0; d < K1; d++) hk_gather(f + d * fk, fs, lane_s, (int64_t)C * n, F + d * C * n);
        for (int i = 0; i < r; i++)
            for (int q = 0; q < r; q++) A[r * i + q] = J[n * i + passive[q]];
        lu(r, A, piv);
        for (int d = 0; d < K1; d++)
            for (int col = 0; col < C; col++) {
                const vd *fd = F + (d * C + col) * n;
                for (int q = 0; q < r; q++) {   /* f_p^(d) - sum_{j>=1} (P J_p^(j))^T lam^(d-j) */
                    vd s = fd[passive[q]];
                    for (int j = 1; j <= d; j++) {
                        const vd *Jj = J + j * r * n, *lj = Lv + ((d - j) * C + col) * r;
                        vd t = (vd){0};
                        for (int i = 0; i < r; i++) t += Jj[n * i + passive[q]] * lj[i];
                        s -= BINOM[d][j] * t;
                    }
                    b[q] = s;
                }
                lu_solve(r, A, piv, 1, b, Lv + (d * C + col) * r);
                for (int q = 0; q < ma; q++) {   /* f_a^(d) - sum_j (P J_a^(j))^T lam^(d-j) */
                    vd s = fd[active[q]];
                    for (int j = 0; j <= d; j++) {
                        const vd *Jj = J + j * r * n, *lj = Lv + ((d - j) * C + col) * r;
                        vd t = (vd){0};
                        for (int i = 0; i < r; i++) t += Jj[n * i + active[q]] * lj[i];
                        s -= BINOM[d][j] * t;
                    }
                    Tv[(d * C + col) * ma + q] = s;
                }
            }
        hk_scatter(Lv, (int64_t)K1 * C * r, s0, N, (int64_t)K1 * C * r, lam);
        if (ma) hk_scatter(Tv, (int64_t)K1 * C * ma, s0, N, (int64_t)K1 * C * ma, tau);
    }
    free(J); free(F); free(Lv); free(Tv);
    return HK_OK;
}

/* The starts of Newton at samples[M] between the anchors (every `taylor`-th sample and the
 * last) of full[N][D][n] (the anchors solved, with their derivatives) at times t[N], as
 * Closed._prediction: the nearer anchor a's Taylor polynomial sum_k q^(k)(t_a) h^k / k!, then
 * the Hermite polynomial of the two around (its coefficients in tau, W[2D][2D] times the
 * two's derivatives scaled by the span's powers, once per window; Horner) where they span
 * time; far[M] where the actuated joints active[m] that move the loops' closure (closing[m]
 * 1) moved more than `step` from the anchor, the Taylor polynomial's last term or its
 * difference from the Hermite one exceeds `tol` on a joint on the loops (on_loops), each
 * joint in its unit[n] (rad; the loops' length where it is prismatic: a 31 um slider's
 * moves in metres never counted); guess[M][n] (the actuated joints' own positions),
 * anchor[M] */
/* hodyn_loop_predict's work (a function of its own, not inlined: the compiler fuses its sums
 * as it did in the entry point, the same numbers) */
__attribute__((noinline))
static int predict_run(int64_t N, int D, int n, const double *full, const double *t, int64_t M,
                       const int32_t *samples, int taylor, int m, const int32_t *active,
                       const uint8_t *closing, const double *unit, double step, double tol,
                       const double *W, double *guess, uint8_t *far, int32_t *anchor) {
    if (N < 1 || D < 2 || D > MAXK || n < 1 || M < 0 || taylor < 1 || m < 0) return HK_SIZE;
    for (int i = 0; i < m; i++)
        if (active[i] < 0 || active[i] >= n) return HK_SIZE;
    for (int64_t e = 0; e < M; e++)
        if (samples[e] < 0 || samples[e] >= N) return HK_SIZE;
    /* the Hermite polynomial in tau of the window (l, r) the samples before were in: its
     * monomial coefficients coef[2D][n] = W (the ends' derivatives scaled by the span's
     * powers), found once per window (the samples between two anchors share it) */
    double power[D], coef[2 * D][n], ends[2 * D][n], inverse[D];   /* inverse[k] = 1 / k! */
    uint8_t counted[n];
    on_loops(n, m, active, closing, counted);
    int64_t window = -1;
    inverse[0] = 1.0;
    for (int k = 1; k < D; k++) inverse[k] = inverse[k - 1] / k;
    for (int64_t e = 0; e < M; e++) {
        const int64_t s = samples[e], l = s - s % taylor, r = l + taylor < N ? l + taylor : N - 1;
        const int64_t a = s - l <= r - s ? l : r;
        const double *qa = full + (size_t)a * D * n, *qs = full + (size_t)s * D * n;
        double *g = guess + (size_t)e * n, h = t[s] - t[a], last = 0.0, moved = 0.0;
        double hk = 1.0;   /* h^k (no division per sample) */
        for (int k = 0; k < D; k++, hk *= h) power[k] = hk * inverse[k];
        for (int j = 0; j < n; j++) {
            double sum = 0.0;
            for (int k = 0; k < D; k++) sum += power[k] * qa[k * n + j];
            g[j] = sum;
            if (counted[j])
                last = larger(last, fabs(power[D - 1] * qa[(D - 1) * n + j]) / unit[j]);
        }
        for (int i = 0; i < m; i++)
            if (closing[i])
                moved = larger(moved, fabs(qs[active[i]] - qa[active[i]]) / unit[active[i]]);
        int out = moved > step || last > tol;
        const double span = t[r] - t[l];
        if (span > 0) {
            if (l != window) {
                const double *ql = full + (size_t)l * D * n, *qr = full + (size_t)r * D * n;
                double scale = 1.0;
                for (int k = 0; k < D; k++, scale *= span)
                    for (int j = 0; j < n; j++) {
                        ends[k][j] = scale * ql[k * n + j];
                        ends[D + k][j] = scale * qr[k * n + j];
                    }
                for (int k = 0; k < 2 * D; k++)   /* (sums in registers: independent chains) */
                    for (int j = 0; j < n; j++) {
                        double sum = 0.0;
                        for (int i = 0; i < 2 * D; i++) sum += W[2 * D * k + i] * ends[i][j];
                        coef[k][j] = sum;
                    }
                window = l;
            }
            const double tau = (t[s] - t[l]) / span;
            double differ = 0.0;
            for (int j = 0; j < n; j++) {   /* (Horner) */
                double sum = coef[2 * D - 1][j];
                for (int k = 2 * D - 2; k >= 0; k--) sum = sum * tau + coef[k][j];
                if (counted[j]) differ = larger(differ, fabs(sum - g[j]) / unit[j]);
                g[j] = sum;
            }
            out |= differ > tol;
        }
        for (int i = 0; i < m; i++) g[active[i]] = qs[active[i]];
        far[e] = (uint8_t)out;
        anchor[e] = (int32_t)a;
    }
    return HK_OK;
}

int hodyn_loop_predict(int64_t N, int D, int n, const double *full, const double *t, int64_t M,
                       const int32_t *samples, int taylor, int m, const int32_t *active,
                       const uint8_t *closing, const double *unit, double step, double tol,
                       const double *W, double *guess, uint8_t *far, int32_t *anchor) {
    return predict_run(N, D, n, full, t, M, samples, taylor, m, active, closing, unit, step,
                       tol, W, guess, far, anchor);
}

/* Closed._predicted in one call (hodyn_loop_predict, then newton_run with the derivatives;
 * their Python between was ~0.03 us a sample of the leg's file): the samples[M] between the
 * anchors of full[N][D][n] (every `taylor`-th and the last, solved with their derivatives),
 * Newton from their starts, and those whose start was too far, whose Newton moved more than
 * `step` from it (each joint in its unit[n]) or left the kept rows' residual |P c| above open_tol (m: Newton did not
 * converge there) continued from their
 * anchor instead (continued()); their positions, derivatives and P J's jets (jets, KJ) in
 * full and jets, c[M][R], PJ[M][r][n] and off[M] as hodyn_loop_newton's. *complete = 0 where
 * some P J_p was near singular (full and jets then partly written: the caller goes on step
 * by step, which writes them all again) */
int hodyn_loop_between(const HModel *m, int64_t N, int D, double *full, const double *t,
                       int64_t M, const int32_t *samples, int taylor, double step,
                       double taylor_tol, const double *W, CUTS_ARGS, int r, const double *Pm,
                       const int32_t *passive, int ma, const int32_t *active,
                       const uint8_t *closing, int iterations, int between, double step_tol,
                       const double *unit,
                       double residual_tol, double open_tol, double quadratic, double near,
                       double *c,
                       double *PJ, double *off, int KJ, double *HK_NULLABLE jets,
                       int64_t *complete) {
    const Cuts k = CUTS_INIT(r, Pm, passive);
    const int n = m->n;
    int status = hk_check(m, M, 1, 1, 0, -1, -1);
    *complete = 0;
    if (status) return status;
    if ((status = cuts_check(m, &k))) return status;
    if (N < 1 || D < 2 || D > MAXK || taylor < 1 || iterations < 1 || between < 1 || ma < 0 ||
        ma > n || !(step > 0) || (jets && (KJ < 1 || KJ > D - 1)))
        return HK_SIZE;
    for (int i = 0; i < ma; i++)
        if (active[i] < 0 || active[i] >= n) return HK_SIZE;
    for (int64_t e = 0; e < M; e++)
        if (samples[e] < 0 || samples[e] >= N) return HK_SIZE;
    if (M == 0) { *complete = 1; return HK_OK; }
    double *guess = malloc(sizeof(double) * M * n), *q = malloc(sizeof(double) * M * n);
    double *start = malloc(sizeof(double) * M * n);
    double *target = malloc(sizeof(double) * M * (ma ? ma : 1));
    uint8_t *far = malloc(M), *ok = malloc(M);
    int32_t *anchor = malloc(sizeof(int32_t) * M), *rows = malloc(sizeof(int32_t) * M);
    double *cb = malloc(sizeof(double) * M * R), *PJb = malloc(sizeof(double) * M * r * n);
    double *offb = malloc(sizeof(double) * M);
    int64_t *which = malloc(sizeof(int64_t) * M);
    if (!guess || !q || !start || !target || !far || !ok || !anchor || !rows || !cb || !PJb ||
        !offb || !which) {
        status = HK_NOMEM;
        goto done;
    }
    {
    if ((status = predict_run(N, D, n, full, t, M, samples, taylor, ma, active, closing, unit,
                              step, taylor_tol, W, guess, far, anchor)))
        goto done;
    /* Newton from the near ones' starts (all of them, as a rule: no copies) */
    int64_t F = 0;
    for (int64_t e = 0; e < M; e++) F += far[e];
    int64_t B = 0;
    for (int64_t e = 0; e < M; e++)
        if (!far[e]) {
            which[B] = e;
            rows[B] = samples[e];
            memcpy(q + B * n, guess + e * n, sizeof(double) * n);
            B++;
        }
    if (B) {
        double *cn = F ? cb : c, *PJn = F ? PJb : PJ, *offn = F ? offb : off;
        if ((status = newton_run(m, &k, B, q, iterations, step_tol, unit, residual_tol, quadratic,
                                 near, cn, PJn, offn,
                                 ok, D, KJ, full, rows, jets)))
            goto done;
        for (int64_t x = 0; x < B; x++)
            if (!ok[x]) goto done;   /* (*complete stays 0) */
        for (int64_t x = 0; x < B; x++) {   /* wandered off, or not closed: continued */
            const int64_t e = which[x];
            double moved = 0.0, res = 0.0;
            for (int j = 0; j < n; j++)
                moved = larger(moved, fabs(q[x * n + j] - guess[e * n + j]) / unit[j]);
            for (int i = 0; i < r; i++) {
                double s = 0.0;
                for (int f = 0; f < R; f++) s += Pm[R * i + f] * cn[x * R + f];
                res = larger(res, fabs(s));
            }
            far[e] = moved > step || res > open_tol;
            if (F) {
                memcpy(c + e * R, cn + x * R, sizeof(double) * R);
                memcpy(PJ + e * r * n, PJn + x * r * n, sizeof(double) * r * n);
                off[e] = offn[x];
            }
        }
    }
    F = 0;   /* those continued from their anchors */
    for (int64_t e = 0; e < M; e++)
        if (far[e]) {
            which[F] = e;
            rows[F] = samples[e];
            memcpy(start + F * n, full + (size_t)anchor[e] * D * n, sizeof(double) * n);
            for (int i = 0; i < ma; i++)
                target[F * ma + i] = full[(size_t)samples[e] * D * n + active[i]];
            F++;
        }
    if (F) {
        int all_ok;
        if ((status = continued(m, &k, F, start, target, ma, active, closing, step, iterations,
                                between, step_tol, unit, residual_tol, quadratic, near, q, cb, PJb,
                                offb, ok, D, KJ, full,
                                rows, jets, &all_ok)) || !all_ok)
            goto done;
        for (int64_t x = 0; x < F; x++) {
            const int64_t e = which[x];
            memcpy(c + e * R, cb + x * R, sizeof(double) * R);
            memcpy(PJ + e * r * n, PJb + x * r * n, sizeof(double) * r * n);
            off[e] = offb[x];
        }
    }
    *complete = 1;
    }
done:
    free(guess); free(q); free(start); free(target); free(far); free(ok); free(anchor);
    free(rows); free(cb); free(PJb); free(offb); free(which);
    return status;
}
