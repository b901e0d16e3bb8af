/* The root's twist jet of a floating base, gravity included (floating.py, root_jet, is the
 * reference; tests/test_kernel.py holds them to 1e-12). Per sample, with the root's
 * orientation R in the world, its body twist derivatives V^(k) and gravity g (world):
 *   u = (0; -R^T g),  u^(k) = -sum_{j<k} C(k-1,j) ad_{V^(j)} u^(k-1-j)      (u' = -ad_V u)
 *   jet^(0) = V,  jet^(k) = V^(k) + k u^(k-1)
 * the twist derivatives of the root in the frame that falls freely with gravity. One sample
 * at a time: a few dozen operations, no lanes needed. */
#include "kernel.h"

static inline void cross3(const double *a, const double *b, double *out) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* R[N][3][3]; Vb[N][D][6] (D >= K1); g[3]; out[N][K1][6] */
int hodyn_root_jet(int64_t N, int K1, int D, const double *R, const double *Vb,
                   const double *g, double *out) {
    if (N < 0 || K1 < 1 || K1 > MAXK || D < K1) return HK_SIZE;
    double u[MAXK][6], t[3];
    for (int64_t s = 0; s < N; s++) {
        const double *Rs = R + 9 * s, *V = Vb + (size_t)6 * D * s;
        double *o = out + (size_t)6 * K1 * s;
        u[0][0] = u[0][1] = u[0][2] = 0.0;
        for (int a = 0; a < 3; a++) u[0][3 + a] = -(Rs[a] * g[0] + Rs[3 + a] * g[1] + Rs[6 + a] * g[2]);
        for (int k = 1; k + 1 < K1; k++) {
            for (int e = 0; e < 6; e++) u[k][e] = 0.0;
            for (int j = 0; j < k; j++) {  /* ad_V y = (w x y_w; v x y_w + w x y_v) */
                const double *Vj = V + 6 * j, *y = u[k - 1 - j], c = BINOM[k - 1][j];
                cross3(Vj, y, t);
                for (int e = 0; e < 3; e++) u[k][e] -= c * t[e];
                cross3(Vj + 3, y, t);
                for (int e = 0; e < 3; e++) u[k][3 + e] -= c * t[e];
                cross3(Vj, y + 3, t);
                for (int e = 0; e < 3; e++) u[k][3 + e] -= c * t[e];
            }
        }
        for (int e = 0; e < 6; e++) o[e] = V[e];
        for (int k = 1; k < K1; k++)
            for (int e = 0; e < 6; e++) o[6 * k + e] = V[6 * k + e] + k * u[k - 1][e];
    }
    return HK_OK;
}
