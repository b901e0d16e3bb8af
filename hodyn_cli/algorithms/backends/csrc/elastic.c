/* The full elastic-joint model (elastic.py, solve_full, is the reference;
 * tests/test_elastic.py holds them to 1e-12), in the same equations and order, one lane
 * group at a time: the rigid passes (passes.c) to order R, plus the joint torques
 * `extra` (joint-side friction), then per body
 *   R_i = R_p Ad_i.R^T,  R^(k) = sum_{a<k} C(k-1,a) R^(k-1-a) skew(omega^(a))   (body-fixed omega)
 *   zeta_i^(k) = R_i^(k) a_i (joint axis),  nu_c^(k) = R_p^(k) n_c (rotor axis, p carries c)
 *   S^(a) = sum_b C(a,b) zeta^(b) . nu^(a-b),  G^(a) = sum_b C(a,b) zeta^(b) . nu^(a-b+1)
 * for the coupled pairs (i, c), and the solve from the tips to the root:
 *   theta_c^(m) = r_c (q_c^(m) + u_c^(m) / K_c), m <= u_orders[c] (higher orders 0: unused)
 *   theta_c^(m) = r_c q_c^(m), m <= R + 2, for a rigid drive (K_c = inf: no solve needed)
 *   u_i^(k) += I_c sum_a C(k,a) (S^(a) theta_c^(k-a+2) + G^(a) theta_c^(k-a+1)),  k <= R
 *   tau_m,c^(k) = u_c^(k) / (r_c eta_c) + I_c (theta_c^(k+2) + n_c . omega_p^(k+1)),  k <= order */
#include "kernel.h"

/* out = A skew(w): row r of A times skew(w) is (A_r x w)... written out */
static inline void vmat_skew(const vd *A, const vd *w, vd *out) {
    for (int r = 0; r < 3; r++) {
        const vd *a = A + 3 * r;
        out[3 * r + 0] = a[1] * w[2] - a[2] * w[1];
        out[3 * r + 1] = a[2] * w[0] - a[0] * w[2];
        out[3 * r + 2] = a[0] * w[1] - a[1] * w[0];
    }
}

static inline vd cdot3(const double *a, const vd *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static inline vd vdot3(const vd *a, const vd *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* u (orders 0..R), theta (0..R+2) and tau_m (0..order) of N samples. qs: sample s's [D][n]
 * at qs + s qstride (D >= R + 3); base, W as in hodyn_body_fixed with order R; extra[N][R+1][n] (or NULL) joint torques added
 * to the rigid ones; per joint: driven, gear (r), efficiency (eta), stiffness (K; inf: a rigid
 * drive), inertia (I, 0 without a drive), axis[n][3] (rotor axis in the carrier's frame),
 * u_orders (<= R); pairs[P][2] (i, c) sorted by i with accel[P], speed[P] (S resp. G not
 * identically zero); outputs u[N][R+1][n], theta[N][R+3][n], taum[N][order+1][n] (order <= R).
 * A joint without a drive has theta = q. */
int hodyn_elastic(const HModel *m, int64_t N, int D, const double *qs, int64_t qstride, int R,
                  const double *base, int64_t base_rows, const double *W, const double *extra, const uint8_t *driven,
                  const double *gear, const double *efficiency, const double *stiffness,
                  const double *inertia, const double *axis, const int32_t *u_orders, int P,
                  const int32_t *pairs, const uint8_t *accel, const uint8_t *speed, int order,
                  double *u_out, double *theta_out, double *taum_out) {
    int status = hk_check(m, N, D, R + 3, R, base_rows, qstride);
    if (status) return status;
    const int n = m->n, K1 = R + 2, r1 = R + 1, nq = (R + 3) * n;
    if (order < 0 || order > R || P < 0) return HK_SIZE;
    for (int i = 0; i < n; i++)
        if (u_orders[i] < 0 || u_orders[i] > R) return HK_SIZE;
    for (int e = 0; e < 2 * P; e++)
        if (pairs[e] < 0 || pairs[e] >= n) return HK_SIZE;
    Consts c;
    if (hk_consts(m, &c)) return HK_NOMEM;
    vd *Q = hk_alloc(sizeof(vd) * nq), *V = hk_alloc(sizeof(vd) * 6 * K1 * n);
    vd *F = hk_alloc(sizeof(vd) * 6 * r1 * n), *u = hk_alloc(sizeof(vd) * r1 * n);
    vd *bv = hk_alloc(sizeof(vd) * 6 * K1), *Rk = hk_alloc(sizeof(vd) * 9 * K1 * n);
    vd *zeta = hk_alloc(sizeof(vd) * 3 * r1 * n), *nu = hk_alloc(sizeof(vd) * 3 * K1 * n);
    vd *theta = hk_alloc(sizeof(vd) * nq), *taum = hk_alloc(sizeof(vd) * (order + 1) * n);
    vd *ex = extra ? hk_alloc(sizeof(vd) * r1 * n) : NULL;
    AdjointV *Ad = hk_alloc(sizeof(AdjointV) * n);
    if (!Q || !V || !F || !u || !bv || !Rk || !zeta || !nu || !theta || !taum || !Ad
        || (extra && !ex)) {
        status = HK_NOMEM;
        goto done;
    }
    int64_t lane_s[LANES] = {0};
    hk_gather(base, 0, lane_s, 6 * K1, bv);
    for (int64_t s0 = 0; s0 < N; s0 += LANES) {
        hk_lanes(s0, N, lane_s);
        hk_lane_motion(&c, K1, qs, qstride, nq, base, base_rows, lane_s, Q, bv, Ad, V);
        hk_lane_wrenches(W, n, r1, lane_s, F);
        hk_backward(&c, r1, Q, V, Ad, F, NULL, u);  /* u[k * n + i]: the rigid torques */
        if (extra) {
            hk_gather(extra, (int64_t)r1 * n, lane_s, (int64_t)r1 * n, ex);
            for (int e = 0; e < r1 * n; e++) u[e] += ex[e];
        }
        for (int i = 0; i < n; i++) {  /* world rotations and their rates, the axes */
            const int p = m->parent[i];
            vd *Ri = Rk + (size_t)9 * K1 * i, t[9];
            for (int r = 0; r < 3; r++)
                for (int col = 0; col < 3; col++) {
                    vd acc = {0};  /* R_p (Ad_i.R)^T */
                    for (int e = 0; e < 3; e++)
                        acc += (p < 0 ? (vd){0} + (double)(r == e) : Rk[(size_t)9 * K1 * p + 3 * r + e])
                               * Ad[i].R[3 * col + e];
                    Ri[3 * r + col] = acc;
                }
            for (int k = 1; k < K1; k++) {
                for (int e = 0; e < 9; e++) Ri[9 * k + e] = (vd){0};
                for (int a = 0; a < k; a++) {
                    vmat_skew(Ri + 9 * (k - 1 - a), V + ((size_t)K1 * i + a) * 6, t);
                    for (int e = 0; e < 9; e++) Ri[9 * k + e] += BINOM[k - 1][a] * t[e];
                }
            }
            const double *X = m->X + 6 * i;
            for (int k = 0; k < r1; k++)
                for (int r = 0; r < 3; r++)
                    zeta[((size_t)i * r1 + k) * 3 + r] = m->kind[i] != HJ_PRISMATIC ? cdot3(X, Ri + 9 * k + 3 * r) : (vd){0};
        }
        for (int i = 0; i < n; i++) {
            vd *nui = nu + (size_t)3 * K1 * i;
            memset(nui, 0, sizeof(vd) * 3 * K1);
            if (!driven[i]) continue;
            const int p = m->parent[i];
            for (int k = 0; k < (p < 0 ? 1 : K1); k++)
                for (int r = 0; r < 3; r++)
                    nui[3 * k + r] = p < 0 ? (vd){0} + axis[3 * i + r]
                                           : cdot3(axis + 3 * i, Rk + (size_t)9 * K1 * p + 9 * k + 3 * r);
        }
        memset(theta, 0, sizeof(vd) * nq);
        for (int cc = n - 1; cc >= 0; cc--) {  /* descendants first: u_c is complete here */
            const int solved = driven[cc] && !isinf(stiffness[cc]);
            for (int k = 0; k <= (solved ? u_orders[cc] : R + 2); k++) {  /* theta[k * n + c] */
                const vd q = Q[k * n + cc];
                theta[k * n + cc] = solved ? gear[cc] * (q + u[k * n + cc] / stiffness[cc])
                               : driven[cc] ? gear[cc] * q : q;
            }
            for (int pr = 0; pr < P; pr++) {
                if (pairs[2 * pr + 1] != cc) continue;
                const int i = pairs[2 * pr];
                const vd *z = zeta + (size_t)3 * r1 * i, *v = nu + (size_t)3 * K1 * cc;
                vd S[r1], G[r1];
                for (int a = 0; a < r1; a++) {
                    S[a] = G[a] = (vd){0};
                    for (int b = 0; b <= a; b++) {
                        S[a] += BINOM[a][b] * vdot3(z + 3 * b, v + 3 * (a - b));
                        G[a] += BINOM[a][b] * vdot3(z + 3 * b, v + 3 * (a - b + 1));
                    }
                    if (!accel[pr]) S[a] = (vd){0};
                    if (!speed[pr]) G[a] = (vd){0};
                }
                for (int k = 0; k < r1; k++) {
                    vd acc = {0};
                    for (int a = 0; a <= k; a++)
                        acc += BINOM[k][a] * (S[a] * theta[(k - a + 2) * n + cc]
                                              + G[a] * theta[(k - a + 1) * n + cc]);
                    u[k * n + i] += inertia[cc] * acc;
                }
            }
        }
        for (int k = 0; k <= order; k++)
            for (int i = 0; i < n; i++) {
                if (!driven[i]) { taum[k * n + i] = u[k * n + i]; continue; }
                const int p = m->parent[i];
                vd om = {0};  /* n_c . omega_p^(k+1), body-fixed */
                if (p >= 0) om = cdot3(axis + 3 * i, V + ((size_t)K1 * p + k + 1) * 6);
                taum[k * n + i] = u[k * n + i] / (gear[i] * efficiency[i])
                                  + inertia[i] * (theta[(k + 2) * n + i] + om);
            }
        hk_scatter(u, (int64_t)r1 * n, s0, N, (int64_t)r1 * n, u_out);
        hk_scatter(theta, nq, s0, N, nq, theta_out);
        hk_scatter(taum, (order + 1) * n, s0, N, (order + 1) * n, taum_out);
    }
done:
    free(Q); free(V); free(F); free(u); free(bv); free(Rk); free(zeta); free(nu); free(theta);
    free(taum); free(ex); free(Ad);
    hk_free_consts(&c);
    return status;
}
