/* The closed-form EOM matrices (closed_form.py, eom_matrices_numpy, is the reference;
 * tests/test_kernel.py holds them to 1e-12), in the same equations and order.
 * Per sample, per body i with parent p (anc[i*n + c] != 0: column c belongs to an ancestor
 * of i or to i itself):
 *   D^(k) = -sum_{j<k} C(k-1,j) q_i^(j+1) ad_X D^(k-1-j),  D^(0) = Ad_{C_{i,p}}   (18)
 *   J_i^(k)[c] = sum_j C(k,j) D^(j) J_p^(k-j)[c],  J_i^(0)[i] = X_i                (16)
 *   V^(k) = sum_j C(k,j) J^(j) q^(k-j+1);  G^(k) = MJ^(k+1) - sum_j C(k,j) ad*_{V^(j)} MJ^(k-j)
 *   H^(k) = G^(k) + sum_j C(k,j) M ad_{V^(j)} J^(k-j);  u^(k) = -sum C(k-1,j) ad_{V^(j)} u^(k-1-j)
 *   M^(k) += sum_j C(k,j) J^(j)T MJ^(k-j), C^(k) with G, Cbar^(k) with H, g^(k) with M u,
 *   Q^(k) with W.
 * The root is at rest with acceleration u_root[u_rows][6], shared (u_rows = 1) or per
 * sample (u_rows = N): gravity as base acceleration.
 * Outputs, each derivative order a block of all samples: Mo, Co, Cbo (or NULL)
 * [r+1][N][n][n]; go, Qo [r+1][N][n]. */
#include "kernel.h"

static inline void vmatvec(const vd *A, const vd *x, vd *out) {  /* vd 6x6 times vd */
    for (int r = 0; r < 6; r++) {
        const vd *a = A + 6 * r;
        out[r] = a[0] * x[0] + a[1] * x[1] + a[2] * x[2] + a[3] * x[3] + a[4] * x[4] + a[5] * x[5];
    }
}

static inline void cmatvec(const double *A, const vd *x, vd *out) { /* constant 6x6 times vd */
    for (int r = 0; r < 6; r++) {
        const double *a = A + 6 * r;
        out[r] = a[0] * x[0] + a[1] * x[1] + a[2] * x[2] + a[3] * x[3] + a[4] * x[4] + a[5] * x[5];
    }
}

int hodyn_closed_form(const HModel *m, int64_t N, int D, const double *qs, int r,
                      const double *u_root, int64_t u_rows, const double *W, double *Mo, double *Co,
                      double *Cbo, double *go, double *Qo) {
    int status = hk_check(m, N, D, r + 3, r, u_rows);
    if (status) return status;
    const int n = m->n, K1 = r + 2, r1 = r + 1;
    const int32_t *parent = m->parent, *revolute = m->revolute;
    const double *X = m->X, *M = m->M, *A0 = m->A0, *A1 = m->A1, *A2 = m->A2;
    const uint8_t *anc = m->anc;
    const size_t jsz = (size_t)K1 * n * 6;          /* one body's J: [k][c][6] */
    const size_t mat = (size_t)r1 * n * n, vec = (size_t)r1 * n;
    vd *J = NULL, *MJ = NULL, *G = NULL, *H = NULL, *U = NULL, *Q = NULL, *Acc = NULL;
    const size_t acc_size = 3 * mat + 2 * vec;      /* M, C, Cbar, g, Q_ext of one group */
    int fail = 0;
    fail = fail || posix_memalign((void **)&J, sizeof(vd), sizeof(vd) * jsz * n);
    fail = fail || posix_memalign((void **)&MJ, sizeof(vd), sizeof(vd) * jsz);
    fail = fail || posix_memalign((void **)&G, sizeof(vd), sizeof(vd) * jsz);
    fail = fail || posix_memalign((void **)&H, sizeof(vd), sizeof(vd) * jsz);
    fail = fail || posix_memalign((void **)&U, sizeof(vd), sizeof(vd) * 6 * n);
    fail = fail || posix_memalign((void **)&Q, sizeof(vd), sizeof(vd) * D * n);
    fail = fail || posix_memalign((void **)&Acc, sizeof(vd), sizeof(vd) * acc_size);
    if (fail) { free(J); free(MJ); free(G); free(H); free(U); free(Q); free(Acc); return HK_NOMEM; }
    vd *Ms = Acc, *Cs = Acc + mat, *Cbs = Acc + 2 * mat, *gs = Acc + 3 * mat, *Qs = gs + vec;
    vd Dk[MAXK][36], Ad[36], V[MAXK][6], u[MAXK][6], Mu[MAXK][6], t[6], t2[6], uroot[6];
    for (int e = 0; e < 6; e++) uroot[e] = (vd){0} + u_root[e];
    const int with_cbar = Cbo != NULL;

    for (int64_t s0 = 0; s0 < N; s0 += LANES) {
        int64_t lane_s[LANES];
        for (int l = 0; l < LANES; l++) lane_s[l] = s0 + l < N ? s0 + l : N - 1;
        if (u_rows > 1)
            for (int e = 0; e < 6; e++)
                for (int l = 0; l < LANES; l++) uroot[e][l] = u_root[lane_s[l] * 6 + e];
        for (int c = 0; c < D * n; c++)  /* Q[k * n + i] = q_i^(k) */
            for (int l = 0; l < LANES; l++) Q[c][l] = qs[(size_t)lane_s[l] * D * n + c];
        memset(Acc, 0, sizeof(vd) * acc_size);
        for (int i = 0; i < n; i++) {
            const double *Xi = X + 6 * i, *Mi = M + 36 * i;
            const double *a0 = A0 + 36 * i, *a1 = A1 + 36 * i, *a2 = A2 + 36 * i;
            const uint8_t *ai = anc + (size_t)i * n;
            const int p = parent[i], rev = revolute[i];
            vd sn, cs;
            if (rev) {
                for (int l = 0; l < LANES; l++) { sn[l] = sin(Q[i][l]); cs[l] = 1.0 - cos(Q[i][l]); }
            } else {
                sn = Q[i]; cs = (vd){0};
            }
            for (int e = 0; e < 36; e++) Ad[e] = a0[e] - sn * a1[e] + cs * a2[e];
            memcpy(Dk[0], Ad, sizeof(Ad));
            for (int k = 1; k < K1; k++) {           /* (18): columns of ad_X D */
                for (int e = 0; e < 36; e++) Dk[k][e] = (vd){0};
                for (int j = 0; j < k; j++) {
                    const vd c = BINOM[k - 1][j] * Q[(j + 1) * n + i];
                    for (int col = 0; col < 6; col++) {
                        vd x[6], y[6];
                        for (int e = 0; e < 6; e++) x[e] = Dk[k - 1 - j][6 * e + col];
                        vjoint_ad(Xi, rev, x, y);
                        for (int e = 0; e < 6; e++) Dk[k][6 * e + col] -= c * y[e];
                    }
                }
            }
            vd *Ji = J + jsz * i;                    /* (16) */
            memset(Ji, 0, sizeof(vd) * jsz);
            if (p >= 0) {
                const vd *Jp = J + jsz * p;
                for (int k = 0; k < K1; k++)
                    for (int c = 0; c < n; c++) {
                        if (!ai[c] || c == i) continue;
                        vd *out = Ji + ((size_t)k * n + c) * 6;
                        for (int j = 0; j <= k; j++) {
                            vmatvec(Dk[j], Jp + ((size_t)(k - j) * n + c) * 6, t);
                            for (int e = 0; e < 6; e++) out[e] += BINOM[k][j] * t[e];
                        }
                    }
            }
            for (int e = 0; e < 6; e++) Ji[(size_t)i * 6 + e] = (vd){0} + Xi[e];
            for (int k = 0; k < r1; k++) {           /* V^(k) */
                for (int e = 0; e < 6; e++) V[k][e] = (vd){0};
                for (int j = 0; j <= k; j++)
                    for (int c = 0; c < n; c++) {
                        if (!ai[c]) continue;
                        const vd w = BINOM[k][j] * Q[(k - j + 1) * n + c];
                        const vd *Jc = Ji + ((size_t)j * n + c) * 6;
                        for (int e = 0; e < 6; e++) V[k][e] += w * Jc[e];
                    }
            }
            for (int k = 0; k < K1; k++)
                for (int c = 0; c < n; c++)
                    if (ai[c]) cmatvec(Mi, Ji + ((size_t)k * n + c) * 6, MJ + ((size_t)k * n + c) * 6);
            for (int k = 0; k < r1; k++)             /* G (22), H (54) */
                for (int c = 0; c < n; c++) {
                    if (!ai[c]) continue;
                    vd *Gk = G + ((size_t)k * n + c) * 6, *Hk = H + ((size_t)k * n + c) * 6;
                    memcpy(Gk, MJ + ((size_t)(k + 1) * n + c) * 6, sizeof(vd) * 6);
                    for (int j = 0; j <= k; j++) {
                        vcoad(V[j], MJ + ((size_t)(k - j) * n + c) * 6, t);
                        for (int e = 0; e < 6; e++) Gk[e] -= BINOM[k][j] * t[e];
                    }
                    if (!with_cbar) continue;
                    memcpy(Hk, Gk, sizeof(vd) * 6);
                    for (int j = 0; j <= k; j++) {
                        vad(V[j], Ji + ((size_t)(k - j) * n + c) * 6, t);
                        cmatvec(Mi, t, t2);
                        for (int e = 0; e < 6; e++) Hk[e] += BINOM[k][j] * t2[e];
                    }
                }
            vmatvec(Ad, p < 0 ? uroot : U + 6 * p, U + 6 * i);   /* (26) */
            memcpy(u[0], U + 6 * i, sizeof(vd) * 6);
            for (int k = 1; k < r1; k++) {
                for (int e = 0; e < 6; e++) u[k][e] = (vd){0};
                for (int j = 0; j < k; j++) {
                    vad(V[j], u[k - 1 - j], t);
                    for (int e = 0; e < 6; e++) u[k][e] -= BINOM[k - 1][j] * t[e];
                }
            }
            for (int k = 0; k < r1; k++) cmatvec(Mi, u[k], Mu[k]);
            vd Wv[MAXK][6];
            if (W)
                for (int k = 0; k < r1; k++)
                    for (int e = 0; e < 6; e++)
                        for (int l = 0; l < LANES; l++)
                            Wv[k][e][l] = W[(((size_t)lane_s[l] * n + i) * r1 + k) * 6 + e];
            for (int k = 0; k < r1; k++)             /* (29), (31), (36), (37), (54) */
                for (int j = 0; j <= k; j++) {
                    const double bc = BINOM[k][j];
                    for (int a = 0; a < n; a++) {
                        if (!ai[a]) continue;
                        const vd *Ja = Ji + ((size_t)j * n + a) * 6;
                        vd *Mrow = Ms + ((size_t)k * n + a) * n, *Crow = Cs + ((size_t)k * n + a) * n;
                        for (int b = 0; b < n; b++) {
                            if (!ai[b]) continue;
                            const vd *gj = G + ((size_t)(k - j) * n + b) * 6;
                            vd sc = Ja[0] * gj[0];
                            for (int e = 1; e < 6; e++) sc += Ja[e] * gj[e];
                            Crow[b] += bc * sc;
                            if (b >= a) { /* M^(k) is symmetric: upper triangle, mirrored below */
                                const vd *mj = MJ + ((size_t)(k - j) * n + b) * 6;
                                vd sm = Ja[0] * mj[0];
                                for (int e = 1; e < 6; e++) sm += Ja[e] * mj[e];
                                Mrow[b] += bc * sm;
                            }
                            if (with_cbar) {
                                const vd *hj = H + ((size_t)(k - j) * n + b) * 6;
                                vd sh = Ja[0] * hj[0];
                                for (int e = 1; e < 6; e++) sh += Ja[e] * hj[e];
                                Cbs[((size_t)k * n + a) * n + b] += bc * sh;
                            }
                        }
                        vd sg = Ja[0] * Mu[k - j][0];
                        for (int e = 1; e < 6; e++) sg += Ja[e] * Mu[k - j][e];
                        gs[(size_t)k * n + a] += bc * sg;
                        if (W) {
                            vd sq = Ja[0] * Wv[k - j][0];
                            for (int e = 1; e < 6; e++) sq += Ja[e] * Wv[k - j][e];
                            Qs[(size_t)k * n + a] += bc * sq;
                        }
                    }
                }
        }
        for (int k = 0; k < r1; k++)                 /* mirror M's lower triangle */
            for (int a = 0; a < n; a++)
                for (int b = 0; b < a; b++) Ms[((size_t)k * n + a) * n + b] = Ms[((size_t)k * n + b) * n + a];
        for (int k = 0; k < r1; k++) {  /* derivative order k of every sample in one block */
            const size_t nn = (size_t)n * n;
            hk_scatter(Ms + k * nn, (int64_t)nn, s0, N, (int64_t)nn, Mo + k * N * nn);
            hk_scatter(Cs + k * nn, (int64_t)nn, s0, N, (int64_t)nn, Co + k * N * nn);
            if (with_cbar) hk_scatter(Cbs + k * nn, (int64_t)nn, s0, N, (int64_t)nn, Cbo + k * N * nn);
            hk_scatter(gs + k * n, n, s0, N, n, go + k * N * n);
            hk_scatter(Qs + k * n, n, s0, N, n, Qo + k * N * n);
        }
    }
    free(J); free(MJ); free(G); free(H); free(U); free(Q); free(Acc);
    return HK_OK;
}

