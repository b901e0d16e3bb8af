/* The body-fixed inverse dynamics of any order: the forward and backward passes of passes.c
 * (body_fixed.py is the readable reference), lane group by lane group. */
#include "kernel.h"

/* tau and derivatives of N samples. qs: sample s's [D][nv] at qs + s qstride (D >= order +
 * 3; a multi-DOF joint's columns: row 0 its configuration coordinates, row k >= 1 its
 * velocity coordinates' derivative k - 1, body_fixed.py); base[base_rows][order + 2][6], the
 * root's twist and its derivatives, shared (base_rows = 1) or per sample (N);
 * W[N][n][order + 1][6] or NULL; out[order + 1][N][nv]
 * (each derivative order one block of all samples); Vout[N][n][order + 2][6] (the
 * body-fixed twists) or NULL; F0out[N][order + 1][6] (the root's wrench, hk_root_wrench)
 * or NULL. */
int hodyn_body_fixed(const HModel *m, int64_t N, int D, const double *qs, int64_t qstride,
                     int order, const double *base, int64_t base_rows, const double *W, double *out,
                     double *Vout, double *F0out) {
    int status = hk_check_joints(m, N, D, order + 3, order, base_rows, qstride, 1);
    if (status) return status;
    if (m->dof[m->n] != m->n)
        return hk_body_fixed_multi(m, N, D, qs, qstride, order, base, base_rows, W, out, Vout,
                                   F0out);
    const int n = m->n, K1 = order + 2, r1 = order + 1, nq = (order + 3) * n;
    Consts c;
    if (hk_consts(m, &c)) return HK_NOMEM;
    vd *Q = hk_alloc(sizeof(vd) * nq), *V = hk_alloc(sizeof(vd) * 6 * K1 * n);
    vd *F = hk_alloc(sizeof(vd) * 6 * r1 * n), *tau = hk_alloc(sizeof(vd) * r1 * n);
    vd *bv = hk_alloc(sizeof(vd) * 6 * K1), *F0 = hk_alloc(sizeof(vd) * 6 * r1);
    AdjointV *Ad = hk_alloc(sizeof(AdjointV) * n);
    if (!Q || !V || !F || !tau || !bv || !F0 || !Ad) { status = HK_NOMEM; goto done; }
    int64_t lane_s[LANES] = {0};
    hk_gather(base, 0, lane_s, 6 * K1, bv);
    for (int64_t s0 = 0; s0 < N; s0 += LANES) {
        hk_lanes(s0, N, lane_s);
        hk_lane_motion(&c, K1, qs, qstride, nq, base, base_rows, lane_s, Q, bv, Ad, V);
        if (Vout) hk_scatter(V, 6 * K1 * n, s0, N, 6 * K1 * n, Vout);
        hk_lane_wrenches(W, n, r1, lane_s, F);
        hk_backward(&c, r1, Q, V, Ad, F, NULL, tau);
        for (int k = 0; k < r1; k++)   /* each order one block: tau^(k) contiguous */
            hk_scatter(tau + k * n, n, s0, N, n, out + (size_t)k * N * n);
        if (F0out) {
            hk_root_wrench(&c, r1, Q, bv, Ad, F, F0);
            hk_scatter(F0, 6 * r1, s0, N, 6 * r1, F0out);
        }
    }
done:
    free(Q); free(V); free(F); free(tau); free(bv); free(F0); free(Ad);
    hk_free_consts(&c);
    return status;
}

/* tau and derivatives of P motions through the same positions, N samples each (the path's
 * probes, programme.path_limits: one path, P time laws): probe p's sample s at qs + p pstride
 * + s qstride, as hodyn_body_fixed's qs; row 0 (the positions) is read from probe 0 alone
 * (the caller's promise: every probe's is the same). Per lane group the joint adjoints, the
 * positions' share of the forward pass (a sine and cosine per joint: its most expensive
 * part at order 0), are made once, and each probe runs the rest of both passes: the same
 * functions on the same numbers as hodyn_body_fixed on each probe alone, so the same bits.
 * base[1][order + 2][6], shared; no external wrenches; out[P][order + 1][N][n]. 1-DOF
 * joints only (HK_MODEL otherwise: the caller runs each probe alone). */
int hodyn_body_fixed_probes(const HModel *m, int64_t N, int D, const double *qs, int64_t qstride,
                            int P, int64_t pstride, int order, const double *base, double *out) {
    int status = hk_check(m, N, D, order + 3, order, 1, qstride);
    if (status) return status;
    if (P < 1 || pstride < 0) return HK_SIZE;
    const int n = m->n, K1 = order + 2, r1 = order + 1, nq = (order + 3) * n;
    Consts c;
    if (hk_consts(m, &c)) return HK_NOMEM;
    vd *Q = hk_alloc(sizeof(vd) * nq), *V = hk_alloc(sizeof(vd) * 6 * K1 * n);
    vd *F = hk_alloc(sizeof(vd) * 6 * r1 * n), *tau = hk_alloc(sizeof(vd) * r1 * n);
    vd *bv = hk_alloc(sizeof(vd) * 6 * K1);
    AdjointV *Ad = hk_alloc(sizeof(AdjointV) * n);
    if (!Q || !V || !F || !tau || !bv || !Ad) { status = HK_NOMEM; goto done; }
    int64_t lane_s[LANES] = {0};
    hk_gather(base, 0, lane_s, 6 * K1, bv);
    for (int64_t s0 = 0; s0 < N; s0 += LANES) {
        hk_lanes(s0, N, lane_s);
        for (int p = 0; p < P; p++) {
            hk_gather(qs + p * pstride, qstride, lane_s, nq, Q);
            for (int i = 0; i < n; i++) {   /* hk_forward's order: body i's after its parent's */
                if (p == 0) hk_joint_adjoint(&c, i, Q[i], &Ad[i]);
                hk_forward_twists(&c, i, K1, Q, bv, Ad, V);
            }
            memset(F, 0, sizeof(vd) * 6 * r1 * n);
            hk_backward(&c, r1, Q, V, Ad, F, NULL, tau);
            double *o = out + (size_t)p * r1 * N * n;
            for (int k = 0; k < r1; k++)
                hk_scatter(tau + k * n, n, s0, N, n, o + (size_t)k * N * n);
        }
    }
done:
    free(Q); free(V); free(F); free(tau); free(bv); free(Ad);
    hk_free_consts(&c);
    return status;
}
