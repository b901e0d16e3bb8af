/* The contacts' share of a floating base (algorithms/contacts: frames.py and distribution.py
 * are the readable reference; tests/test_contacts_kernel.py holds them together), in the same
 * equations and order, lane group by lane group.
 *
 * hodyn_contact_frames: the contact frames relative to the root, as jets. The body-fixed
 * forward pass with the root held (its twist jet zero), over the bodies on the paths to the
 * contacts' only, gives each body's twists V^(k) = (w; v)^(k) (body frame) and, composing
 * Ai_i = Ad_{C_{i,p}} Ai_p, its pose (R_b, p_b) in the root frame; then
 *   R_b^(k+1) = sum_j C(k,j) R_b^(k-j) skew(w^(j)),   p_b^(k+1) = sum_j C(k,j) R_b^(k-j) v^(j)
 * and a contact frame at the constant pose T = (T_R, T_p) on body b
 *   R_c^(k) = R_b^(k) T_R,   p_c^(k) = p_b^(k) + R_b^(k) T_p      (on the root: T, at rest).
 *
 * hodyn_contact_share: the minimum weighted-norm distribution of b = -W over the active
 * contacts of one phase (distribution.py's docstring), every step a product or an inverse of
 * jets (core/jets.py):
 *   A_c = [skew(p_c) R_0^T; R_0^T] (point),  [[R_c, skew(p_c) R_c], [0, R_c]] (surface)
 *   B = A H^-1,  G = B A^T,  L = G_mf G_ff^-1,  S = G_mm - L G_fm
 *   S^+ = S^-1 (full), (S + u u^T / (u^T u))^-1 (line u = p_1 - p_0), 0 (none)
 *   y_m = S^+ (b_m - L b_f),  y_f = G_ff^-1 (b_f - G_fm y_m),  F = B^T y,  left = b - A F
 * and each wrench in its contact frame's axes (what its link's wrench is made of): a point's
 * force R_c^T (R_0^T f), a surface's as it is,
 * with (X^-1)^(k) = -X^-1 sum_{j>=1} C(k,j) X^(j) (X^-1)^(k-j) (3 x 3: adjugate over the
 * determinant). A determinant exactly zero stops the call with HK_SINGULAR: the caller runs
 * that phase as numpy does (which says so or not, as LU finds it). */
#include "kernel.h"

/* ---- jets of 3 x 3 matrices and 3-vectors, [K1][9] and [K1][3] -------------------------- */
/* out^(k) = sum_j C(k,j) a^(j) b^(k-j) (out not aliasing a, b) */
static void jet_mm3(int K1, const vd *a, const vd *b, vd *out) {
    for (int k = 0; k < K1; k++) {
        vd *o = out + 9 * k;
        for (int e = 0; e < 9; e++) o[e] = (vd){0};
        for (int j = 0; j <= k; j++) {
            const vd *x = a + 9 * j, *y = b + 9 * (k - j);
            const double w = BINOM[k][j];
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 3; c++)
                    o[3 * r + c] += w * (x[3 * r] * y[c] + x[3 * r + 1] * y[3 + c] +
                                         x[3 * r + 2] * y[6 + c]);
        }
    }
}

/* the jet of M v */
static void jet_mv3(int K1, const vd *M, const vd *v, vd *out) {
    vd t[3];
    for (int k = 0; k < K1; k++) {
        vd *o = out + 3 * k;
        o[0] = o[1] = o[2] = (vd){0};
        for (int j = 0; j <= k; j++) {
            vm3v(M + 9 * j, v + 3 * (k - j), t);
            for (int e = 0; e < 3; e++) o[e] += BINOM[k][j] * t[e];
        }
    }
}

/* X = A^-1 of one 3 x 3 matrix, adjugate over the determinant; the determinant returned */
static vd inv3(const vd *A, vd *X) {
    X[0] = A[4] * A[8] - A[5] * A[7];
    X[3] = A[5] * A[6] - A[3] * A[8];
    X[6] = A[3] * A[7] - A[4] * A[6];
    const vd det = A[0] * X[0] + A[1] * X[3] + A[2] * X[6], inv = 1.0 / det;
    X[1] = A[2] * A[7] - A[1] * A[8];
    X[2] = A[1] * A[5] - A[2] * A[4];
    X[4] = A[0] * A[8] - A[2] * A[6];
    X[5] = A[2] * A[3] - A[0] * A[5];
    X[7] = A[1] * A[6] - A[0] * A[7];
    X[8] = A[0] * A[4] - A[1] * A[3];
    for (int e = 0; e < 9; e++) X[e] *= inv;
    return det;
}

/* X = jet of A^-1: X^(k) = -X^(0) sum_{j>=1} C(k,j) A^(j) X^(k-j); 0 where a determinant is
 * exactly zero (in any lane) */
static int jet_inv3(int K1, const vd *A, vd *X) {
    const vd det = inv3(A, X);
    for (int l = 0; l < LANES; l++)
        if (det[l] == 0.0) return 0;
    vd s[9], t[9];
    for (int k = 1; k < K1; k++) {
        for (int e = 0; e < 9; e++) s[e] = (vd){0};
        for (int j = 1; j <= k; j++) {
            jet_mm3(1, A + 9 * j, X + 9 * (k - j), t);
            for (int e = 0; e < 9; e++) s[e] += BINOM[k][j] * t[e];
        }
        jet_mm3(1, X, s, t);
        for (int e = 0; e < 9; e++) X[9 * k + e] = -t[e];
    }
    return 1;
}

/* ---- the frames -------------------------------------------------------------------------- */
/* R[N][C][order + 1][9], p[N][C][order + 1][3]: contact c at T[c] (4 x 4, its body's frame) on
 * body[c] (-1: the root), from qs (sample s's [D][n] at qs + s qstride, D >= max(order, 1) + 1) */
int hodyn_contact_frames(const HModel *m, int64_t N, int D, const double *HK_STRIDED qs,
                         int64_t qstride, int order, int C, const int32_t *body,
                         const double *T, double *R, double *p) {
    const int K1 = order + 1, K1t = order > 0 ? order : 1;   /* twists to K-1 give poses to K */
    int status = hk_check(m, N, D, K1t + 1, order, -1, qstride);
    if (status) return status;
    const int n = m->n;
    if (C < 0) return HK_SIZE;
    for (int c = 0; c < C; c++)
        if (body[c] < -1 || body[c] >= n) return HK_SIZE;
    Consts cs;
    if (hk_consts(m, &cs)) return HK_NOMEM;
    const int nq = (K1t + 1) * n;
    vd *Q = hk_alloc(sizeof(vd) * nq), *V = hk_alloc(sizeof(vd) * 6 * K1t * n);
    const int Cs = C ? C : 1;
    vd *Ro = hk_alloc(sizeof(vd) * 9 * K1 * Cs), *po = hk_alloc(sizeof(vd) * 3 * K1 * Cs);
    AdjointV *Ad = hk_alloc(sizeof(AdjointV) * n), *Ai = hk_alloc(sizeof(AdjointV) * n);
    uint8_t *need = calloc(n, 1);
    if (!Q || !V || !Ro || !po || !Ad || !Ai || !need) { status = HK_NOMEM; goto done; }
    for (int c = 0; c < C; c++)   /* the bodies on the paths to the contacts (a humanoid's legs) */
        if (body[c] >= 0)
            for (int i = 0; i < n; i++) need[i] |= m->anc[(size_t)body[c] * n + i];
    {
    vd zero[6 * K1t];   /* the root held */
    memset(zero, 0, sizeof zero);
    int64_t lane_s[LANES];
    for (int64_t s0 = 0; s0 < N; s0 += LANES) {
        hk_lanes(s0, N, lane_s);
        hk_gather(qs, qstride, lane_s, nq, Q);
        for (int i = 0; i < n; i++) {
            if (!need[i]) continue;
            const int par = m->parent[i];
            hk_forward_body(&cs, i, K1t, Q, zero, Ad, V);
            if (par < 0) Ai[i] = Ad[i];
            else hk_compose(&Ad[i], &Ai[par], &Ai[i]);
        }
        for (int c = 0; c < C; c++) {
            const double *Tc = T + 16 * c;
            vd *Rc = Ro + 9 * K1 * c, *pc = po + 3 * K1 * c;
            memset(Rc, 0, sizeof(vd) * 9 * K1);
            memset(pc, 0, sizeof(vd) * 3 * K1);
            if (body[c] < 0) {   /* on the root: at rest relative to it */
                for (int r = 0; r < 3; r++) {
                    for (int k = 0; k < 3; k++) Rc[3 * r + k] = (vd){0} + Tc[4 * r + k];
                    pc[r] = (vd){0} + Tc[4 * r + 3];
                }
                continue;
            }
            vd Rb[K1][9], pb[K1][3];
            hk_pose_jet(&Ai[body[c]], V + (size_t)6 * K1t * body[c], K1, Rb[0], pb[0]);
            for (int k = 0; k < K1; k++) {
                for (int r = 0; r < 3; r++) {
                    const vd *x = Rb[k] + 3 * r;
                    for (int col = 0; col < 3; col++)
                        Rc[9 * k + 3 * r + col] = x[0] * Tc[col] + x[1] * Tc[4 + col] +
                                                  x[2] * Tc[8 + col];
                    pc[3 * k + r] = pb[k][r] + x[0] * Tc[3] + x[1] * Tc[7] + x[2] * Tc[11];
                }
            }
        }
        hk_scatter(Ro, 9 * K1 * C, s0, N, 9 * K1 * C, R);
        hk_scatter(po, 3 * K1 * C, s0, N, 3 * K1 * C, p);
    }
    }
done:
    free(Q); free(V); free(Ro); free(po); free(Ad); free(Ai); free(need);
    hk_free_consts(&cs);
    return status;
}

/* ---- the distribution -------------------------------------------------------------------- */
/* out = the jet of M^T y or of M y for M[K1][6][k] (rows 6, columns k) */
static void jet_m6k_y(int K1, int k, const vd *M, const vd *y, int transpose, vd *out) {
    const int rows = transpose ? k : 6, cols = transpose ? 6 : k;
    for (int d = 0; d < K1; d++) {
        vd *o = out + rows * d;
        for (int r = 0; r < rows; r++) o[r] = (vd){0};
        for (int j = 0; j <= d; j++) {
            const vd *Mj = M + 6 * k * j, *yj = y + cols * (d - j);
            const double w = BINOM[d][j];
            for (int r = 0; r < rows; r++) {
                vd s = (vd){0};
                for (int c = 0; c < cols; c++)
                    s += (transpose ? Mj[k * c + r] : Mj[k * r + c]) * yj[c];
                o[r] += w * s;
            }
        }
    }
}

/* a 3 x 3 block [r0.., c0..] of the jet of G[K1][6][6] */
static void block3(int K1, const vd *G, int r0, int c0, vd *out) {
    for (int k = 0; k < K1; k++)
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++) out[9 * k + 3 * r + c] = G[36 * k + 6 * (r0 + r) + c0 + c];
}

/* F[rows_n][K1][k] (and left[rows_n][K1][6], Fc[rows_n][K1][k] in the contact axes) of the
 * phase whose samples are rows[rows_n] and whose active contacts are on[Co] (ascending) of
 * the C contacts of R[N][C][K1][9],
 * p[N][C][K1][3] (hodyn_contact_frames); point[C]: 1 a point (3 unknowns, world axes), 0 a
 * surface (6); R0[N][K1][9] the root's orientation jet (needed with a point); Hinv[k][k] the
 * inverse weights (k = the active contacts' unknowns); rank 0 full, 1 line (Co = 2 points),
 * 2 none; b[N][K1][6] */
int hodyn_contact_share(int64_t N, int K1, int C, const double *R, const double *p,
                        const double *HK_NULLABLE R0, const uint8_t *point, int64_t rows_n,
                        const int32_t *rows, int Co, const int32_t *on, const double *Hinv,
                        int rank, const double *b, double *F, double *HK_NULLABLE left,
                        double *HK_NULLABLE Fc) {
    if (N < 0 || K1 < 1 || K1 > MAXK - 1 || C < 0 || Co < 1 || Co > C || rows_n < 0 ||
        rank < 0 || rank > 2 || (rank == 1 && Co != 2))
        return HK_SIZE;
    int k = 0;
    for (int c = 0; c < Co; c++) {
        if (on[c] < 0 || on[c] >= C || (c && on[c] <= on[c - 1])) return HK_SIZE;
        if (point[on[c]] && !R0) return HK_SIZE;
        k += point[on[c]] ? 3 : 6;
    }
    for (int64_t r = 0; r < rows_n; r++)
        if (rows[r] < 0 || rows[r] >= N) return HK_SIZE;
    int status = HK_OK;
    vd *A = hk_alloc(sizeof(vd) * K1 * 6 * k), *B = hk_alloc(sizeof(vd) * K1 * 6 * k);
    vd *Rc = hk_alloc(sizeof(vd) * K1 * 9 * Co), *pc = hk_alloc(sizeof(vd) * K1 * 3 * Co);
    vd *Fv = hk_alloc(sizeof(vd) * K1 * k);
    if (!A || !B || !Rc || !pc || !Fv) { status = HK_NOMEM; goto done; }
    {
    vd R0t[K1][9], bv[K1][6], G[K1][36], Gff[K1][9], Gffi[K1][9], Gmf[K1][9], Gfm[K1][9],
        L[K1][9], S[K1][9], Sp[K1][9], t9[K1][9];
    vd y[K1][6], u[K1][3], v3[K1][3], w3[K1][3], lf[K1][6];
    int64_t lane_s[LANES];
    for (int64_t s0 = 0; s0 < rows_n && status == HK_OK; s0 += LANES) {
        for (int l = 0; l < LANES; l++) lane_s[l] = rows[s0 + l < rows_n ? s0 + l : rows_n - 1];
        for (int c = 0; c < Co; c++) {
            hk_gather(R + (size_t)9 * K1 * on[c], (int64_t)9 * K1 * C, lane_s, 9 * K1, Rc + 9 * K1 * c);
            hk_gather(p + (size_t)3 * K1 * on[c], (int64_t)3 * K1 * C, lane_s, 3 * K1, pc + 3 * K1 * c);
        }
        hk_gather(b, 6 * K1, lane_s, 6 * K1, bv[0]);
        if (R0) {
            vd R0v[K1][9];
            hk_gather(R0, 9 * K1, lane_s, 9 * K1, R0v[0]);
            for (int d = 0; d < K1; d++)
                for (int r = 0; r < 3; r++)
                    for (int c = 0; c < 3; c++) R0t[d][3 * r + c] = R0v[d][3 * c + r];
        }
        /* A [K1][6][k], each contact's columns */
        for (int c = 0, col = 0; c < Co; col += point[on[c]] ? 3 : 6, c++) {
            const vd *Rj = Rc + 9 * K1 * c, *pj = pc + 3 * K1 * c;
            vd Sk[K1][9], SR[K1][9];
            for (int d = 0; d < K1; d++) {   /* skew is linear: derivative by derivative */
                const vd *x = pj + 3 * d;
                vd *s = Sk[d];
                s[0] = s[4] = s[8] = (vd){0};
                s[1] = -x[2]; s[2] = x[1]; s[3] = x[2]; s[5] = -x[0]; s[6] = -x[1]; s[7] = x[0];
            }
            if (point[on[c]]) {
                jet_mm3(K1, Sk[0], R0t[0], SR[0]);
                for (int d = 0; d < K1; d++)
                    for (int r = 0; r < 3; r++)
                        for (int e = 0; e < 3; e++) {
                            A[6 * k * d + k * r + col + e] = SR[d][3 * r + e];
                            A[6 * k * d + k * (3 + r) + col + e] = R0t[d][3 * r + e];
                        }
            } else {
                jet_mm3(K1, Sk[0], Rj, SR[0]);
                for (int d = 0; d < K1; d++)
                    for (int r = 0; r < 3; r++)
                        for (int e = 0; e < 3; e++) {
                            A[6 * k * d + k * r + col + e] = Rj[9 * d + 3 * r + e];
                            A[6 * k * d + k * r + col + 3 + e] = SR[d][3 * r + e];
                            A[6 * k * d + k * (3 + r) + col + e] = (vd){0};
                            A[6 * k * d + k * (3 + r) + col + 3 + e] = Rj[9 * d + 3 * r + e];
                        }
            }
        }
        /* B = A H^-1 (constant H^-1: derivative by derivative) */
        for (int d = 0; d < K1 * 6; d++)
            for (int c = 0; c < k; c++) {
                vd s = (vd){0};
                for (int e = 0; e < k; e++) s += A[k * d + e] * Hinv[k * e + c];
                B[k * d + c] = s;
            }
        /* G = B A^T */
        for (int d = 0; d < K1; d++) {
            for (int e = 0; e < 36; e++) G[d][e] = (vd){0};
            for (int j = 0; j <= d; j++) {
                const vd *Bj = B + 6 * k * j, *Aj = A + 6 * k * (d - j);
                const double w = BINOM[d][j];
                for (int r = 0; r < 6; r++)
                    for (int c = 0; c < 6; c++) {
                        vd s = (vd){0};
                        for (int e = 0; e < k; e++) s += Bj[k * r + e] * Aj[k * c + e];
                        G[d][6 * r + c] += w * s;
                    }
            }
        }
        block3(K1, G[0], 3, 3, Gff[0]);
        block3(K1, G[0], 0, 3, Gmf[0]);
        block3(K1, G[0], 3, 0, Gfm[0]);
        if (!jet_inv3(K1, Gff[0], Gffi[0])) { status = HK_SINGULAR; break; }
        jet_mm3(K1, Gmf[0], Gffi[0], L[0]);
        jet_mm3(K1, L[0], Gfm[0], t9[0]);
        block3(K1, G[0], 0, 0, S[0]);
        for (int d = 0; d < K1; d++)
            for (int e = 0; e < 9; e++) S[d][e] -= t9[d][e];
        if (rank == 0) {
            if (!jet_inv3(K1, S[0], Sp[0])) { status = HK_SINGULAR; break; }
        } else if (rank == 1) {   /* u u^T / (u^T u), u the line p_1 - p_0 */
            vd outer[K1][9], size[K1], rec[K1];
            for (int d = 0; d < K1; d++)
                for (int e = 0; e < 3; e++) u[d][e] = pc[3 * K1 + 3 * d + e] - pc[3 * d + e];
            for (int d = 0; d < K1; d++) {
                size[d] = (vd){0};
                for (int e = 0; e < 9; e++) outer[d][e] = (vd){0};
                for (int j = 0; j <= d; j++) {
                    const double w = BINOM[d][j];
                    for (int r = 0; r < 3; r++)
                        for (int c = 0; c < 3; c++) outer[d][3 * r + c] += w * (u[j][r] * u[d - j][c]);
                    size[d] += w * (u[j][0] * u[d - j][0] + u[j][1] * u[d - j][1] +
                                    u[j][2] * u[d - j][2]);
                }
            }
            rec[0] = 1.0 / size[0];   /* the reciprocal's jet, as jets.reciprocal */
            for (int d = 1; d < K1; d++) {
                vd s = (vd){0};
                for (int j = 1; j <= d; j++) s += BINOM[d][j] * size[j] * rec[d - j];
                rec[d] = -rec[0] * s;
            }
            for (int d = 0; d < K1; d++)
                for (int e = 0; e < 9; e++) {
                    vd s = (vd){0};
                    for (int j = 0; j <= d; j++) s += BINOM[d][j] * (outer[j][e] * rec[d - j]);
                    t9[d][e] = S[d][e] + s;
                }
            if (!jet_inv3(K1, t9[0], Sp[0])) { status = HK_SINGULAR; break; }
        } else {
            memset(Sp, 0, sizeof(vd) * 9 * K1);
        }
        /* y_m = S^+ (b_m - L b_f), y_f = G_ff^-1 (b_f - G_fm y_m) */
        for (int d = 0; d < K1; d++)
            for (int e = 0; e < 3; e++) u[d][e] = bv[d][3 + e];
        jet_mv3(K1, L[0], u[0], v3[0]);
        for (int d = 0; d < K1; d++)
            for (int e = 0; e < 3; e++) v3[d][e] = bv[d][e] - v3[d][e];
        jet_mv3(K1, Sp[0], v3[0], w3[0]);
        for (int d = 0; d < K1; d++)
            for (int e = 0; e < 3; e++) y[d][e] = w3[d][e];
        jet_mv3(K1, Gfm[0], w3[0], v3[0]);
        for (int d = 0; d < K1; d++)
            for (int e = 0; e < 3; e++) v3[d][e] = u[d][e] - v3[d][e];
        jet_mv3(K1, Gffi[0], v3[0], w3[0]);
        for (int d = 0; d < K1; d++)
            for (int e = 0; e < 3; e++) y[d][3 + e] = w3[d][e];
        /* F = B^T y; left = b - A F */
        jet_m6k_y(K1, k, B, y[0], 1, Fv);
        hk_scatter(Fv, K1 * k, s0, rows_n, K1 * k, F);
        if (Fc) {   /* a point's force R_c^T (R_0^T f) (B's columns free now: its scratch) */
            for (int c = 0, col = 0; c < Co; col += point[on[c]] ? 3 : 6, c++) {
                for (int d = 0; d < K1; d++)
                    for (int e = 0; e < (point[on[c]] ? 3 : 6); e++)
                        B[k * d + col + e] = Fv[k * d + col + e];
                if (!point[on[c]]) continue;
                vd f[K1][3], g[K1][3], Rt[K1][9];
                const vd *Rj = Rc + 9 * K1 * c;
                for (int d = 0; d < K1; d++) {
                    for (int e = 0; e < 3; e++) f[d][e] = Fv[k * d + col + e];
                    for (int r = 0; r < 3; r++)
                        for (int e = 0; e < 3; e++) Rt[d][3 * r + e] = Rj[9 * d + 3 * e + r];
                }
                jet_mv3(K1, R0t[0], f[0], g[0]);
                jet_mv3(K1, Rt[0], g[0], f[0]);
                for (int d = 0; d < K1; d++)
                    for (int e = 0; e < 3; e++) B[k * d + col + e] = f[d][e];
            }
            hk_scatter(B, K1 * k, s0, rows_n, K1 * k, Fc);
        }
        if (left) {
            jet_m6k_y(K1, k, A, Fv, 0, lf[0]);
            for (int d = 0; d < K1; d++)
                for (int e = 0; e < 6; e++) lf[d][e] = bv[d][e] - lf[d][e];
            hk_scatter(lf[0], 6 * K1, s0, rows_n, 6 * K1, left);
        }
    }
    }
done:
    free(A); free(B); free(Rc); free(pc); free(Fv);
    return status;
}
