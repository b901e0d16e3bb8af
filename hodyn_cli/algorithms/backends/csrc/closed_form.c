/* The closed-form EOM matrices (closed_form.py, eom_matrices_numpy, and for a floating base
 * floating.py's _eom are the references; tests/test_kernel.py holds them to 1e-12), in the
 * same equations and order. Per sample, per body i with parent p; the columns of body i are
 * those of its ancestors and its own (and, floating, the root's 6):
 *   D^(k) = -sum_{j<k} C(k-1,j) q_i^(j+1) ad_X D^(k-1-j),  D^(0) = Ad_{C_{i,p}}   (18)
 *   J_i^(k)[c] = sum_j C(k,j) D^(j) J_p^(k-j)[c],  J_i^(0)[i] = X_i                (16)
 *   V^(k) = sum_j C(k,j) J^(j) nu^(k-j);  G^(k) = MJ^(k+1) - sum_j C(k,j) ad*_{V^(j)} MJ^(k-j)
 *   H^(k) = G^(k) + sum_j C(k,j) M ad_{V^(j)} J^(k-j);  u^(k) = -sum C(k-1,j) ad_{V^(j)} u^(k-1-j)
 *   M^(k) += sum_j C(k,j) J^(j)T MJ^(k-j), C^(k) with G, Cbar^(k) with H, g^(k) with M u,
 *   Q^(k) with W.
 * nu are the generalized velocities: qd (fixed base), or (V_0; qd) with a floating root
 * whose body twist jet nu0[N][r+2][6] is given: then the root is one more body with
 * J_0 = [I 0] (constant), inertia M0 and no wrench (the caller adds W_0 to Q's first 6 rows),
 * and a child of the root has J_i^(k)[c] = D^(k)[:, c] for the root's columns c < 6.
 * u_root[u_rows][6], shared (u_rows = 1) or per sample (u_rows = N), is the root's gravity
 * acceleration (0; -R^T g): at rest for a fixed base.
 * Outputs (m = n, or 6 + n with nu0), each derivative order a block of all samples:
 * Mo, Co, Cbo (or NULL) [r+1][N][m][m]; go, Qo [r+1][N][m]. */
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

static inline vd dot6(const vd *a, const vd *b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}

/* One group's accumulators and scratch (m generalized velocities, orders r1 = r + 1). */
typedef struct {
    int m, r1, with_cbar;
    vd *NU;                  /* [r1][m]: nu^(k) */
    vd *MJ, *G, *H;          /* [K1][m][6] */
    vd *Ms, *Cs, *Cbs;       /* [r1][m][m] */
    vd *gs, *Qs;             /* [r1][m] */
} Group;

/* Body terms of the sums (20)-(27) and their rates: Jacobian rows Ji[K1][m][6] over the
 * columns cols[nc], inertia Mi, gravity acceleration u0, wrench jet Wv[r1][6] or NULL. */
static void body_terms(Group *g, const vd *Ji, const int *cols, int nc, const double *Mi,
                       const vd *u0, const vd (*Wv)[6]) {
    const int m = g->m, r1 = g->r1, K1 = r1 + 1, with_cbar = g->with_cbar;
    const vd *NU = g->NU;
    vd *restrict MJ = g->MJ, *restrict G = g->G, *restrict H = g->H, *restrict Ms = g->Ms;
    vd *restrict Cs = g->Cs, *restrict Cbs = g->Cbs, *restrict gs = g->gs, *restrict Qs = g->Qs;
    vd V[MAXK][6], u[MAXK][6], Mu[MAXK][6], t[6], t2[6];
    for (int k = 0; k < r1; k++) {             /* V^(k) */
        for (int e = 0; e < 6; e++) V[k][e] = (vd){0};
        for (int j = 0; j <= k; j++)
            for (int x = 0; x < nc; x++) {
                const int c = cols[x];
                const vd w = BINOM[k][j] * NU[(size_t)(k - j) * m + c];
                const vd *Jc = Ji + ((size_t)j * m + c) * 6;
                for (int e = 0; e < 6; e++) V[k][e] += w * Jc[e];
            }
    }
    for (int k = 0; k < K1; k++)
        for (int x = 0; x < nc; x++) {
            const size_t o = ((size_t)k * m + cols[x]) * 6;
            cmatvec(Mi, Ji + o, MJ + o);
        }
    for (int k = 0; k < r1; k++)               /* G (22), H (54) */
        for (int x = 0; x < nc; x++) {
            const int c = cols[x];
            vd *Gk = G + ((size_t)k * m + c) * 6, *Hk = H + ((size_t)k * m + c) * 6;
            memcpy(Gk, MJ + ((size_t)(k + 1) * m + c) * 6, sizeof(vd) * 6);
            for (int j = 0; j <= k; j++) {
                vcoad(V[j], MJ + ((size_t)(k - j) * m + c) * 6, t);
                for (int e = 0; e < 6; e++) Gk[e] -= BINOM[k][j] * t[e];
            }
            if (!with_cbar) continue;
            memcpy(Hk, Gk, sizeof(vd) * 6);
            for (int j = 0; j <= k; j++) {
                vad(V[j], Ji + ((size_t)(k - j) * m + c) * 6, t);
                cmatvec(Mi, t, t2);
                for (int e = 0; e < 6; e++) Hk[e] += BINOM[k][j] * t2[e];
            }
        }
    memcpy(u[0], u0, sizeof(vd) * 6);          /* (26) */
    for (int k = 1; k < r1; k++) {
        for (int e = 0; e < 6; e++) u[k][e] = (vd){0};
        for (int j = 0; j < k; j++) {
            vad(V[j], u[k - 1 - j], t);
            for (int e = 0; e < 6; e++) u[k][e] -= BINOM[k - 1][j] * t[e];
        }
    }
    for (int k = 0; k < r1; k++) cmatvec(Mi, u[k], Mu[k]);
    for (int k = 0; k < r1; k++)               /* (29), (31), (36), (37), (54) */
        for (int j = 0; j <= k; j++) {
            const double bc = BINOM[k][j];
            for (int x = 0; x < nc; x++) {
                const int a = cols[x];
                const vd *Ja = Ji + ((size_t)j * m + a) * 6;
                vd *Mrow = Ms + ((size_t)k * m + a) * m, *Crow = Cs + ((size_t)k * m + a) * m;
                for (int y = 0; y < nc; y++) {
                    const int b = cols[y];
                    Crow[b] += bc * dot6(Ja, G + ((size_t)(k - j) * m + b) * 6);
                    if (b >= a) /* M^(k) is symmetric: upper triangle, mirrored below */
                        Mrow[b] += bc * dot6(Ja, MJ + ((size_t)(k - j) * m + b) * 6);
                    if (with_cbar)
                        Cbs[((size_t)k * m + a) * m + b] +=
                            bc * dot6(Ja, H + ((size_t)(k - j) * m + b) * 6);
                }
                gs[(size_t)k * m + a] += bc * dot6(Ja, Mu[k - j]);
                if (Wv) Qs[(size_t)k * m + a] += bc * dot6(Ja, Wv[k - j]);
            }
        }
}

int hodyn_closed_form(const HModel *md, int64_t N, int D, const double *qs, int64_t qstride,
                      int r, const double *u_root, int64_t u_rows, const double *nu0, const double *W,
                      double *Mo, double *Co, double *Cbo, double *go, double *Qo) {
    int status = hk_check(md, N, D, r + 3, r, u_rows, qstride);
    if (status) return status;
    if (nu0 && !md->M0) return HK_MODEL;
    const int n = md->n, K1 = r + 2, r1 = r + 1, base = nu0 ? 6 : 0, m = n + base;
    const int32_t *parent = md->parent;
    const double *X = md->X, *M = md->M, *A0 = md->A0, *A1 = md->A1, *A2 = md->A2;
    const size_t jsz = (size_t)K1 * m * 6;          /* one body's J: [k][c][6] */
    const size_t mat = (size_t)r1 * m * m, vec = (size_t)r1 * m;
    const size_t acc_size = 3 * mat + 2 * vec;      /* M, C, Cbar, g, Q_ext of one group */
    /* slot 0: the root (floating), slot i + 1: body i; cols[slot][..] ascending */
    vd *J = hk_alloc(sizeof(vd) * jsz * (n + 1)), *Q = hk_alloc(sizeof(vd) * D * n);
    vd *U = hk_alloc(sizeof(vd) * 6 * (n + 1)), *Acc = hk_alloc(sizeof(vd) * acc_size);
    vd *NU = hk_alloc(sizeof(vd) * r1 * m), *MJ = hk_alloc(sizeof(vd) * jsz);
    vd *G = hk_alloc(sizeof(vd) * jsz), *H = hk_alloc(sizeof(vd) * jsz);
    int *cols = malloc(sizeof(int) * (size_t)(n + 1) * m), *ncols = malloc(sizeof(int) * (n + 1));
    if (!J || !Q || !U || !Acc || !NU || !MJ || !G || !H || !cols || !ncols) {
        status = HK_NOMEM;
        goto done;
    }
    ncols[0] = base;
    for (int c = 0; c < base; c++) cols[c] = c;
    for (int i = 0; i < n; i++) {
        const int ps = parent[i] + 1, s = i + 1;
        memcpy(cols + (size_t)s * m, cols + (size_t)ps * m, sizeof(int) * ncols[ps]);
        cols[(size_t)s * m + ncols[ps]] = base + i;
        ncols[s] = ncols[ps] + 1;
    }
    Group grp = {m, r1, Cbo != NULL, NU, MJ, G, H, Acc, Acc + mat, Acc + 2 * mat,
                 Acc + 3 * mat, Acc + 3 * mat + vec};
    vd Dk[MAXK][36], Ad[36], t[6], Wv[MAXK][6];
    vd *uroot = U;  /* slot 0 */
    int64_t lane_s[LANES] = {0};
    hk_gather(u_root, 0, lane_s, 6, uroot);
    if (base) {  /* J_0 = [I 0], constant */
        memset(J, 0, sizeof(vd) * jsz);
        for (int c = 0; c < 6; c++) J[c * 6 + c] = (vd){0} + 1.0;
    }

    for (int64_t s0 = 0; s0 < N; s0 += LANES) {
        hk_lanes(s0, N, lane_s);
        if (u_rows > 1) hk_gather(u_root, 6, lane_s, 6, uroot);
        hk_gather(qs, qstride, lane_s, (int64_t)D * n, Q);  /* Q[k * n + i] = q_i^(k) */
        for (int k = 0; k < r1; k++) {
            if (base) hk_gather(nu0 + 6 * k, 6 * K1, lane_s, 6, NU + (size_t)k * m);
            for (int i = 0; i < n; i++) NU[(size_t)k * m + base + i] = Q[(k + 1) * n + i];
        }
        memset(Acc, 0, sizeof(vd) * acc_size);
        if (base) body_terms(&grp, J, cols, ncols[0], md->M0, uroot, NULL);
        for (int i = 0; i < n; i++) {
            const double *Xi = X + 6 * i;
            const double *a0 = A0 + 36 * i, *a1 = A1 + 36 * i, *a2 = A2 + 36 * i;
            const int p = parent[i], s = i + 1, ps = p + 1;
            vd sn, cs;
            hk_joint_coefficients(md->kind[i], Q[i], &sn, &cs);
            for (int e = 0; e < 36; e++) Ad[e] = a0[e] - sn * a1[e] + cs * a2[e];
            if (md->kind[i] == HJ_HELICAL) hk_helical_shift(Xi, md->pitch[i] * Q[i], Ad, Ad + 18, 6);
            memcpy(Dk[0], Ad, sizeof(Ad));
            for (int k = 1; k < K1; k++) {           /* (18): columns of ad_X D */
                for (int e = 0; e < 36; e++) Dk[k][e] = (vd){0};
                for (int j = 0; j < k; j++) {
                    const vd c = BINOM[k - 1][j] * Q[(j + 1) * n + i];
                    for (int col = 0; col < 6; col++) {
                        vd x[6], y[6];
                        for (int e = 0; e < 6; e++) x[e] = Dk[k - 1 - j][6 * e + col];
                        vjoint_ad(Xi, md->kind[i], md->pitch[i], x, y);
                        for (int e = 0; e < 6; e++) Dk[k][6 * e + col] -= c * y[e];
                    }
                }
            }
            vd *Ji = J + jsz * s;                    /* (16) */
            memset(Ji, 0, sizeof(vd) * jsz);
            const vd *Jp = J + jsz * ps;
            for (int x = 0; x < ncols[ps]; x++) {
                const int c = cols[(size_t)ps * m + x];
                for (int k = 0; k < K1; k++) {
                    vd *out = Ji + ((size_t)k * m + c) * 6;
                    if (p < 0) {                     /* J_0 = [I 0]: column c of D^(k) */
                        for (int e = 0; e < 6; e++) out[e] = Dk[k][6 * e + c];
                        continue;
                    }
                    for (int j = 0; j <= k; j++) {
                        vmatvec(Dk[j], Jp + ((size_t)(k - j) * m + c) * 6, t);
                        for (int e = 0; e < 6; e++) out[e] += BINOM[k][j] * t[e];
                    }
                }
            }
            for (int e = 0; e < 6; e++) Ji[(size_t)(base + i) * 6 + e] = (vd){0} + Xi[e];
            vmatvec(Ad, U + 6 * ps, U + 6 * s);      /* (26) */
            if (W)
                for (int k = 0; k < r1; k++)
                    for (int e = 0; e < 6; e++)
                        for (int l = 0; l < LANES; l++)
                            Wv[k][e][l] = W[(((size_t)lane_s[l] * n + i) * r1 + k) * 6 + e];
            body_terms(&grp, Ji, cols + (size_t)s * m, ncols[s], M + 36 * i, U + 6 * s,
                       W ? (const vd(*)[6])Wv : NULL);
        }
        vd *Ms = grp.Ms;
        for (int k = 0; k < r1; k++)                 /* mirror M's lower triangle */
            for (int a = 0; a < m; a++)
                for (int b = 0; b < a; b++) Ms[((size_t)k * m + a) * m + b] = Ms[((size_t)k * m + b) * m + a];
        for (int k = 0; k < r1; k++) {  /* derivative order k of every sample in one block */
            const size_t mm = (size_t)m * m;
            hk_scatter(Ms + k * mm, (int64_t)mm, s0, N, (int64_t)mm, Mo + k * N * mm);
            hk_scatter(grp.Cs + k * mm, (int64_t)mm, s0, N, (int64_t)mm, Co + k * N * mm);
            if (Cbo) hk_scatter(grp.Cbs + k * mm, (int64_t)mm, s0, N, (int64_t)mm, Cbo + k * N * mm);
            hk_scatter(grp.gs + k * m, m, s0, N, m, go + k * N * m);
            hk_scatter(grp.Qs + k * m, m, s0, N, m, Qo + k * N * m);
        }
    }
done:
    free(J); free(Q); free(U); free(Acc); free(NU); free(MJ); free(G); free(H);
    free(cols); free(ncols);
    return status;
}
