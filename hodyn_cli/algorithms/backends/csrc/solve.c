/* Batched solves with symmetric positive definite matrices (the mass matrix): X = M^-1 B per
 * sample, by Cholesky M = L L^T and two triangular solves; numpy.linalg.solve is the
 * reference (tests/test_partials_kernel.py). A matrix that is not positive definite (a
 * pivot <= 0 or not a number) stops the call with HK_SINGULAR: the caller solves that chunk
 * another way. */
#include "kernel.h"

/* M[N][n][n], B[N][n][k], X[N][n][k] (X may not alias B) */
int hodyn_spd_solve(int64_t N, int n, const double *M, int k, const double *B, double *X) {
    if (N < 0 || n < 1 || k < 0) return HK_SIZE;
    const size_t nn = (size_t)n * n, nk = (size_t)n * k;
    vd *L = hk_alloc(sizeof(vd) * nn), *Y = hk_alloc(sizeof(vd) * (nk ? nk : 1));
    vd *inv = hk_alloc(sizeof(vd) * n);
    int status = HK_OK;
    if (!L || !Y || !inv) { status = HK_NOMEM; goto done; }
    int64_t lane_s[LANES];
    for (int64_t s0 = 0; s0 < N && status == HK_OK; s0 += LANES) {
        hk_lanes(s0, N, lane_s);
        hk_gather(M, (int64_t)nn, lane_s, (int64_t)nn, L);
        hk_gather(B, (int64_t)nk, lane_s, (int64_t)nk, Y);
        for (int j = 0; j < n; j++) {           /* L (lower triangle of L), 1 / L_jj */
            vd d = L[(size_t)j * n + j];
            for (int c = 0; c < j; c++) d -= L[(size_t)j * n + c] * L[(size_t)j * n + c];
            for (int l = 0; l < LANES; l++) {
                if (!(d[l] > 0)) { status = HK_SINGULAR; break; }
                inv[j][l] = 1.0 / sqrt(d[l]);
            }
            for (int i = j + 1; i < n; i++) {
                vd e = L[(size_t)i * n + j];
                for (int c = 0; c < j; c++) e -= L[(size_t)i * n + c] * L[(size_t)j * n + c];
                L[(size_t)i * n + j] = e * inv[j];
            }
        }
        if (status) break;
        for (int i = 0; i < n; i++)              /* L Z = B */
            for (int c = 0; c < k; c++) {
                vd z = Y[(size_t)i * k + c];
                for (int j = 0; j < i; j++) z -= L[(size_t)i * n + j] * Y[(size_t)j * k + c];
                Y[(size_t)i * k + c] = z * inv[i];
            }
        for (int i = n - 1; i >= 0; i--)         /* L^T X = Z */
            for (int c = 0; c < k; c++) {
                vd x = Y[(size_t)i * k + c];
                for (int j = i + 1; j < n; j++) x -= L[(size_t)j * n + i] * Y[(size_t)j * k + c];
                Y[(size_t)i * k + c] = x * inv[i];
            }
        hk_scatter(Y, (int64_t)nk, s0, N, (int64_t)nk, X);
    }
done:
    free(L); free(Y); free(inv);
    return status;
}
