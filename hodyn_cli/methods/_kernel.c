/* Compiled kernels of hodyn: the body-fixed passes (body_fixed.py) and the closed-form
 * matrices (closed_form.py, eom_matrices_numpy), in the same equations and order as the
 * numpy code, which stays the readable reference; tests/test_kernel.py holds them to 1e-12.
 * Samples run LANES at a time in lockstep (see below), so that the per-sample cost is
 * arithmetic instead of numpy's per-call overhead. Loaded with ctypes by _compiled.py (the
 * module init at the end only makes the file importable, so that setuptools builds and
 * finds it like any extension).
 *
 * Body-fixed, per body i with parent p:
 *   Ad_i = A0_i - sin(q) A1_i + (1 - cos q) A2_i      (revolute; prismatic: A0 - q A1)
 *   a[0][m] = Ad_i V_p^(m),  a[k][m] = a[k-1][m+1] - sum_j C(k-1,j) q^(j+1) ad_X a[k-1-j][m]
 *   V_i^(k) = a[k][0] + X_i q^(k+1)
 *   F_i^(k) = h^(k+1) - sum_j C(k,j) ad*_{V^(j)} h^(k-j) + W_i^(k) + sum_c (transported F_c)
 *   tau_i^(k) = X_i . F_i^(k)
 *   b[0][m] = F^(m),  b[k][m] = b[k-1][m+1] - sum_j C(m,j) q^(j+1) ad_X^T b[k-1][m-j]
 *   d^k(Ad^T F) = Ad^T b[k][0]
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAXK 24 /* twist derivative orders 0..MAXK-1: torque order <= MAXK - 2 */

/* Bumped whenever an entry point's arguments or meaning change: _compiled.py refuses a
 * library built from other sources (a stale build) and falls back to numpy. */
#define HODYN_KERNEL_ABI 3
int hodyn_kernel_abi(void) { return HODYN_KERNEL_ABI; }

static double BINOM[MAXK][MAXK]; /* BINOM[k][j] = C(k, j), filled when the library loads */

__attribute__((constructor)) static void fill_binomials(void) {
    for (int k = 0; k < MAXK; k++) {
        BINOM[k][0] = 1;
        for (int j = 1; j <= k; j++) BINOM[k][j] = BINOM[k - 1][j - 1] + (j < k ? BINOM[k - 1][j] : 0);
    }
}

/* ---- body-fixed passes, LANES samples in lockstep ----------------------------------------
 * The recursion is a chain of short dependent products; running LANES independent samples
 * side by side (GCC/Clang vector extensions: one vd holds the same quantity of LANES
 * samples) turns latency into throughput. A last partial group repeats its final sample in
 * the unused lanes and does not store them.
 * Ad = [[R, 0], [P, R]] (P = skew(p) R) and a rigid-body inertia [[Theta, skew(h)],
 * [-skew(h), m I]] (h = m c) are used by their blocks. */
#define LANES 2 /* 128-bit vectors: the baseline SIMD width of x86-64 (SSE2) and aarch64 (NEON) */
typedef double vd __attribute__((vector_size(LANES * sizeof(double))));

typedef struct { double R[9], P[9]; } Adjoint;       /* constant blocks, scalar */
typedef struct { vd R[9], P[9]; } AdjointV;           /* per-sample blocks */
typedef struct { double Th[9], h[3], m; } Inertia;

static inline void blocks_of(const double *A, Adjoint *out) {
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            out->R[3 * r + c] = A[6 * r + c];
            out->P[3 * r + c] = A[6 * (r + 3) + c];
        }
}

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

/* ad_X y and ad_X^T y for a joint screw: revolute X = (w; 0), prismatic X = (0; v) */
static inline void vjoint_ad(const double *X, int revolute, const vd *y, vd *out) {
    if (revolute) { ccross(X, y, out); ccross(X, y + 3, out + 3); }
    else { out[0] = out[1] = out[2] = (vd){0}; ccross(X + 3, y, out + 3); }
}

static inline void vjoint_coad(const double *X, int revolute, const vd *y, vd *out) {
    if (revolute) { ccross(X, y, out); ccross(X, y + 3, out + 3); }
    else { ccross(X + 3, y + 3, out); out[3] = out[4] = out[5] = (vd){0}; }
    for (int e = 0; e < 6; e++) out[e] = -out[e];
}

/* Returns 0 on success, -1 if out of memory or the order is too high.
 * n: bodies; parent[n]; revolute[n]; X[n][6] (revolute (axis; 0), prismatic (0; axis));
 * M[n][6][6] rigid-body inertias; A0, A1, A2: [n][6][6] adjoint-structured;
 * qs[N][D][n] (D >= order + 3); base[base_rows][order + 2][6], the root's twist and its
 * derivatives, shared (base_rows = 1) or per sample (base_rows = N); W[N][n][order + 1][6] or NULL;
 * out[N][order + 1][n]; Vout[N][n][order + 2][6] (the body-fixed twists) or NULL. */
int hodyn_body_fixed(int n, const int *parent, const int *revolute, const double *X,
                     const double *M, const double *A0, const double *A1, const double *A2,
                     int64_t N, int D, const double *qs, int order, const double *base,
                     int64_t base_rows, const double *W, double *out, double *Vout) {
    const int K1 = order + 2, r1 = order + 1;
    if (K1 > MAXK || D < order + 3) return -1;
    Adjoint *B = malloc(sizeof(Adjoint) * 3 * n); /* per body: Ad_{B^-1}, ad_X .., ad_X^2 .. */
    Inertia *In = malloc(sizeof(Inertia) * n);
    vd *Vb = NULL, *Fb = NULL, *Q = NULL;
    AdjointV *Ad = NULL;
    int fail = !B || !In;
    fail = fail || posix_memalign((void **)&Ad, sizeof(vd), sizeof(AdjointV) * n);
    fail = fail || posix_memalign((void **)&Vb, sizeof(vd), sizeof(vd) * 6 * K1 * n);
    fail = fail || posix_memalign((void **)&Fb, sizeof(vd), sizeof(vd) * 6 * r1 * n);
    fail = fail || posix_memalign((void **)&Q, sizeof(vd), sizeof(vd) * D * n);
    if (fail) { free(B); free(In); free(Ad); free(Vb); free(Fb); free(Q); return -1; }
    for (int i = 0; i < n; i++) {
        blocks_of(A0 + 36 * i, &B[3 * i]);
        blocks_of(A1 + 36 * i, &B[3 * i + 1]);
        blocks_of(A2 + 36 * i, &B[3 * i + 2]);
        const double *Mi = M + 36 * i;
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++) In[i].Th[3 * r + c] = Mi[6 * r + c];
        In[i].h[0] = Mi[2 * 6 + 4]; In[i].h[1] = Mi[0 * 6 + 5]; In[i].h[2] = Mi[1 * 6 + 3];
        In[i].m = Mi[3 * 6 + 3];
    }
    vd base_v[MAXK][6];
    for (int k = 0; k < K1; k++)
        for (int e = 0; e < 6; e++) base_v[k][e] = (vd){0} + base[6 * k + e];
    vd a[MAXK][MAXK][6], Na[MAXK][MAXK][6], h[MAXK][6], b[MAXK][MAXK][6], t[6];

    for (int64_t s0 = 0; s0 < N; s0 += LANES) {
        int64_t lane_s[LANES];
        for (int l = 0; l < LANES; l++) lane_s[l] = s0 + l < N ? s0 + l : N - 1;
        if (base_rows > 1)  /* a base moving per sample */
            for (int l = 0; l < LANES; l++)
                for (int e = 0; e < 6 * K1; e++) base_v[e / 6][e % 6][l] = base[lane_s[l] * 6 * K1 + e];
        for (int c = 0; c < D * n; c++)  /* q[k * n + i] = q_i^(k), one vd per entry */
            for (int l = 0; l < LANES; l++) Q[c][l] = qs[(size_t)lane_s[l] * D * n + c];
        memset(Fb, 0, sizeof(vd) * 6 * r1 * n);
        /* forward pass: twists and their derivatives */
        for (int i = 0; i < n; i++) {
            const double *Xi = X + 6 * i;
            const int rev = revolute[i];
            AdjointV *A = &Ad[i];
            const Adjoint *B0 = &B[3 * i], *B1 = B0 + 1, *B2 = B0 + 2;
            vd sn, cs;
            if (rev) {
                for (int l = 0; l < LANES; l++) { sn[l] = sin(Q[i][l]); cs[l] = 1.0 - cos(Q[i][l]); }
            } else {
                sn = Q[i]; cs = (vd){0};
            }
            for (int e = 0; e < 9; e++) {
                A->R[e] = B0->R[e] - sn * B1->R[e] + cs * B2->R[e];
                A->P[e] = B0->P[e] - sn * B1->P[e] + cs * B2->P[e];
            }
            const vd *Vp = parent[i] < 0 ? &base_v[0][0] : Vb + (size_t)6 * K1 * parent[i];
            for (int m = 0; m < K1; m++) {
                vad_apply(A, Vp + 6 * m, a[0][m]);
                vjoint_ad(Xi, rev, a[0][m], Na[0][m]);
            }
            for (int k = 1; k < K1; k++) {
                for (int m = 0; m + k < K1; m++) {
                    for (int e = 0; e < 6; e++) a[k][m][e] = a[k - 1][m + 1][e];
                    for (int j = 0; j < k; j++) {
                        const vd c = BINOM[k - 1][j] * Q[(j + 1) * n + i];
                        for (int e = 0; e < 6; e++) a[k][m][e] -= c * Na[k - 1 - j][m][e];
                    }
                    vjoint_ad(Xi, rev, a[k][m], Na[k][m]);
                }
            }
            vd *Vi = Vb + (size_t)6 * K1 * i;
            for (int k = 0; k < K1; k++)
                for (int e = 0; e < 6; e++) Vi[6 * k + e] = a[k][0][e] + Xi[e] * Q[(k + 1) * n + i];
            if (Vout)
                for (int l = 0; l < LANES && s0 + l < N; l++) {
                    double *Vo = Vout + (((size_t)(s0 + l) * n + i) * K1) * 6;
                    for (int e = 0; e < 6 * K1; e++) Vo[e] = Vi[e][l];
                }
        }
        /* backward pass: wrenches and their derivatives */
        for (int i = n - 1; i >= 0; i--) {
            const double *Xi = X + 6 * i;
            const vd *Vi = Vb + (size_t)6 * K1 * i;
            const int rev = revolute[i];
            vd *Fi = Fb + (size_t)6 * r1 * i;
            for (int k = 0; k < K1; k++) vinertia_apply(&In[i], Vi + 6 * k, h[k]);
            for (int k = 0; k < r1; k++) {
                for (int e = 0; e < 6; e++) Fi[6 * k + e] += h[k + 1][e];
                for (int j = 0; j <= k; j++) {
                    vcoad(Vi + 6 * j, h[k - j], t);
                    for (int e = 0; e < 6; e++) Fi[6 * k + e] -= BINOM[k][j] * t[e];
                }
            }
            if (W)
                for (int l = 0; l < LANES; l++) {
                    const double *Wi = W + (((size_t)lane_s[l] * n + i) * r1) * 6;
                    for (int e = 0; e < 6 * r1; e++) Fi[e][l] += Wi[e];
                }
            for (int k = 0; k < r1; k++) {
                vd acc = {0};
                for (int e = 0; e < 6; e++) acc += Xi[e] * Fi[6 * k + e];
                for (int l = 0; l < LANES && s0 + l < N; l++)
                    out[(size_t)(s0 + l) * r1 * n + k * n + i] = acc[l];
            }
            const int p = parent[i];
            if (p < 0) continue;
            vd *Fp = Fb + (size_t)6 * r1 * p;
            for (int m = 0; m < r1; m++)
                for (int e = 0; e < 6; e++) b[0][m][e] = Fi[6 * m + e];
            vadT_apply(&Ad[i], b[0][0], t);
            for (int e = 0; e < 6; e++) Fp[e] += t[e];
            for (int k = 1; k < r1; k++) {
                for (int m = 0; m + k < r1; m++) {
                    for (int e = 0; e < 6; e++) b[k][m][e] = b[k - 1][m + 1][e];
                    for (int j = 0; j <= m; j++) {
                        const vd c = BINOM[m][j] * Q[(j + 1) * n + i];
                        vjoint_coad(Xi, rev, b[k - 1][m - j], t);
                        for (int e = 0; e < 6; e++) b[k][m][e] -= c * t[e];
                    }
                }
                vadT_apply(&Ad[i], b[k][0], t);
                for (int e = 0; e < 6; e++) Fp[6 * k + e] += t[e];
            }
        }
    }
    free(B); free(In); free(Ad); free(Vb); free(Fb); free(Q);
    return 0;
}

/* ---- closed-form EOM matrices (closed_form.py is the reference) ------------------------
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
 * Outputs (zeroed here): Mo, Co, Cbo (or NULL) [N][r+1][n][n]; go, Qo [N][r+1][n]. */
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

/* ad_V y = (w x y_w; v x y_w + w x y_v) */
static inline void vad(const vd *V, const vd *y, vd *out) {
    vd t[3];
    vcross(V, y, out);
    vcross(V + 3, y, out + 3);
    vcross(V, y + 3, t);
    out[3] += t[0]; out[4] += t[1]; out[5] += t[2];
}

int hodyn_closed_form(int n, const int *parent, const int *revolute, const double *X,
                      const double *M, const double *A0, const double *A1, const double *A2,
                      const unsigned char *anc, int64_t N, int D, const double *qs, int r,
                      const double *u_root, int64_t u_rows, const double *W, double *Mo, double *Co,
                      double *Cbo, double *go, double *Qo) {
    const int K1 = r + 2, r1 = r + 1;
    if (K1 > MAXK || D < r + 3) return -1;
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
    if (fail) { free(J); free(MJ); free(G); free(H); free(U); free(Q); free(Acc); return -1; }
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
            const unsigned char *ai = anc + (size_t)i * n;
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
        for (int l = 0; l < LANES && s0 + l < N; l++) {  /* scatter the group's lanes */
            const size_t s = (size_t)(s0 + l);
            for (size_t e = 0; e < mat; e++) {
                Mo[s * mat + e] = Ms[e][l];
                Co[s * mat + e] = Cs[e][l];
                if (with_cbar) Cbo[s * mat + e] = Cbs[e][l];
            }
            for (size_t e = 0; e < vec; e++) { go[s * vec + e] = gs[e][l]; Qo[s * vec + e] = Qs[e][l]; }
        }
    }
    free(J); free(MJ); free(G); free(H); free(U); free(Q); free(Acc);
    return 0;
}

static struct PyModuleDef kernel_module = {
    PyModuleDef_HEAD_INIT, .m_name = "_kernel",
    .m_doc = "Compiled body-fixed passes and closed-form matrices (used via ctypes).", .m_size = -1};

PyMODINIT_FUNC PyInit__kernel(void) { return PyModule_Create(&kernel_module); }
