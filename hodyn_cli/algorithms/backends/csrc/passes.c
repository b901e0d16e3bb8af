/* The passes every kernel runs (body_fixed.py is their readable reference; tests/test_kernel.py
 * holds them to 1e-12), in the same equations and order. Per body i with parent p:
 *   Ad_i = A0_i - sin(q) A1_i + (1 - cos q) A2_i      (revolute; prismatic: A0 - q A1;
 *                                                      helical: kernel.h's hk_joint_coefficients)
 *   a[0][m] = Ad_i V_p^(m),  a[k][m] = a[k-1][m+1] - sum_j C(k-1,j) q^(j+1) ad_X a[k-1-j][m]
 *   V_i^(k) = a[k][0] + X_i q^(k+1)
 *   F_i^(k) = h^(k+1) - sum_j C(k,j) ad*_{V^(j)} h^(k-j) + W_i^(k) + sum_c (transported F_c)
 *   tau_i^(k) = X_i . F_i^(k)
 *   b[0][m] = F^(m),  b[k][m] = b[k-1][m+1] - sum_j C(m,j) q^(j+1) ad_X^T b[k-1][m-j]
 *   d^k(Ad^T F) = Ad^T b[k][0]
 * The body-fixed inverse dynamics (body_fixed.c) is the forward and backward pass; the
 * regressor, sensitivities, elastic and partials kernels build on the same passes. */
#include "kernel.h"

void hk_joint_adjoint(const Consts *c, int i, vd q, AdjointV *Ad) {
    const Adjoint *B0 = &c->B[3 * i], *B1 = B0 + 1, *B2 = B0 + 2;
    const int kind = c->m->kind[i];
    vd sn, cs;
    hk_joint_coefficients(kind, q, &sn, &cs);
    for (int e = 0; e < 9; e++) {
        Ad->R[e] = B0->R[e] - sn * B1->R[e] + cs * B2->R[e];
        Ad->P[e] = B0->P[e] - sn * B1->P[e] + cs * B2->P[e];
    }
    if (kind == HJ_HELICAL) hk_helical_shift(c->m->X + 6 * i, c->m->pitch[i] * q, Ad->R, Ad->P, 3);
}

void hk_transport_down(const Consts *c, int i, const vd *Q, const AdjointV *Ad, const vd *in,
                       int K1, int z, vd *out) {
    const int n = c->n, kind = c->m->kind[i];
    const double *X = c->m->X + 6 * i, h = c->m->pitch[i];
    vd a[K1][K1][6], Na[K1][K1][6];  /* a[k][m] = 0 where m + k < z: never read */
    for (int m = z; m < K1; m++) {
        vad_apply(Ad, in + 6 * m, a[0][m]);
        if (K1 > 1) vjoint_ad(X, kind, h, a[0][m], Na[0][m]);
    }
    for (int k = 1; k < K1; k++)
        for (int m = k < z ? z - k : 0; m + k < K1; m++) {
            for (int e = 0; e < 6; e++) a[k][m][e] = a[k - 1][m + 1][e];
            for (int j = 0; j < k && m + k - 1 - j >= z; j++) {
                const vd w = BINOM[k - 1][j] * Q[(j + 1) * n + i];
                for (int e = 0; e < 6; e++) a[k][m][e] -= w * Na[k - 1 - j][m][e];
            }
            if (k + 1 < K1) vjoint_ad(X, kind, h, a[k][m], Na[k][m]);
        }
    for (int k = 0; k < K1; k++)
        for (int e = 0; e < 6; e++) out[6 * k + e] = k < z ? (vd){0} : a[k][0][e];
}

void hk_jacobian_columns(const Consts *c, int r1, const vd *Q, const AdjointV *Ad, vd *J) {
    const int n = c->n;
    const size_t jet = (size_t)6 * r1;
    for (int b = 0; b < n; b++) {
        const int p = c->m->parent[b];
        const uint8_t *anc = c->m->anc + (size_t)b * n;
        for (int a = 0; a < n; a++) {
            if (!anc[a]) continue;
            vd *Ja = J + jet * ((size_t)n * b + a);
            if (a == b) {
                memset(Ja, 0, sizeof(vd) * jet);
                for (int e = 0; e < 6; e++) Ja[e] = (vd){0} + c->m->X[6 * b + e];
            } else {
                hk_transport_down(c, b, Q, &Ad[b], J + jet * ((size_t)n * p + a), r1, 0, Ja);
            }
        }
    }
}

void hk_transport_up(const Consts *c, int i, const vd *Q, const AdjointV *Ad, const vd *in,
                     int r1, vd *out) {
    const int n = c->n, kind = c->m->kind[i];
    const double *X = c->m->X + 6 * i, h = c->m->pitch[i];
    vd b[r1][r1][6], Nb[r1][6], t[6];
    for (int m = 0; m < r1; m++)
        for (int e = 0; e < 6; e++) b[0][m][e] = in[6 * m + e];
    vadT_apply(Ad, b[0][0], t);
    for (int e = 0; e < 6; e++) out[e] += t[e];
    for (int k = 1; k < r1; k++) {
        for (int m = 0; m + k - 1 < r1; m++) vjoint_coad(X, kind, h, b[k - 1][m], Nb[m]);
        for (int m = 0; m + k < r1; m++) {
            for (int e = 0; e < 6; e++) b[k][m][e] = b[k - 1][m + 1][e];
            for (int j = 0; j <= m; j++) {
                const vd w = BINOM[m][j] * Q[(j + 1) * n + i];
                for (int e = 0; e < 6; e++) b[k][m][e] -= w * Nb[m - j][e];
            }
        }
        vadT_apply(Ad, b[k][0], t);
        for (int e = 0; e < 6; e++) out[6 * k + e] += t[e];
    }
}

void hk_forward_body(const Consts *c, int i, int K1, const vd *Q, const vd *base, AdjointV *Ad,
                     vd *V) {
    hk_joint_adjoint(c, i, Q[i], &Ad[i]);
    hk_forward_twists(c, i, K1, Q, base, Ad, V);
}

void hk_forward_twists(const Consts *c, int i, int K1, const vd *Q, const vd *base,
                       const AdjointV *Ad, vd *V) {
    const int n = c->n, p = c->m->parent[i];
    const double *X = c->m->X + 6 * i;
    vd *Vi = V + (size_t)6 * K1 * i;
    hk_transport_down(c, i, Q, &Ad[i], p < 0 ? base : V + (size_t)6 * K1 * p, K1, 0, Vi);
    for (int k = 0; k < K1; k++)
        for (int e = 0; e < 6; e++) Vi[6 * k + e] += X[e] * Q[(k + 1) * n + i];
}

void hk_forward(const Consts *c, int K1, const vd *Q, const vd *base, AdjointV *Ad, vd *V) {
    for (int i = 0; i < c->n; i++) hk_forward_body(c, i, K1, Q, base, Ad, V);
}

void hk_momentum_rates(const Inertia *I, const vd *V, int r1, vd (*h)[6], vd *F) {
    vd t[6];
    for (int k = 0; k <= r1; k++) vinertia_apply(I, V + 6 * k, h[k]);
    for (int k = 0; k < r1; k++) {
        for (int e = 0; e < 6; e++) F[6 * k + e] += h[k + 1][e];
        for (int j = 0; j <= k; j++) {
            vcoad(V + 6 * j, h[k - j], t);
            for (int e = 0; e < 6; e++) F[6 * k + e] -= BINOM[k][j] * t[e];
        }
    }
}

void hk_backward(const Consts *c, int r1, const vd *Q, const vd *V, const AdjointV *Ad, vd *F,
                 vd *h, vd *tau) {
    const int n = c->n, K1 = r1 + 1;
    vd hl[K1][6];
    for (int i = n - 1; i >= 0; i--) {
        const double *X = c->m->X + 6 * i;
        vd *Fi = F + (size_t)6 * r1 * i;
        hk_momentum_rates(&c->In[i], V + (size_t)6 * K1 * i, r1,
                          h ? (vd(*)[6])(h + (size_t)6 * K1 * i) : hl, Fi);
        for (int k = 0; k < r1; k++) tau[k * n + i] = cdot6(X, Fi + 6 * k);
        const int p = c->m->parent[i];
        if (p >= 0) hk_transport_up(c, i, Q, &Ad[i], Fi, r1, F + (size_t)6 * r1 * p);
    }
}

void hk_root_wrench(const Consts *c, int r1, const vd *Q, const vd *base, const AdjointV *Ad,
                    const vd *F, vd *F0) {
    vd h[r1 + 1][6];
    memset(F0, 0, sizeof(vd) * 6 * r1);
    hk_momentum_rates(&c->In0, base, r1, h, F0);
    for (int i = 0; i < c->n; i++)
        if (c->m->parent[i] < 0) hk_transport_up(c, i, Q, &Ad[i], F + (size_t)6 * r1 * i, r1, F0);
}
