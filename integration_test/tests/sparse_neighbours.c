/* Neighbours across sparse levels: see sparse_neighbours.tc. Values and
 * active cells against plain C on dense arrays (an inactive cell reads 0). */
#include "sparse_neighbours.h"
#define LAST_ERROR sparse_neighbours_last_error
#include "common.h"

enum { N = 64 };

static float U[N][N], A[N][N], X[N][N];
static float V[N][N], B[N][N], Y[N][N];
static float got[N][N];
static int mu[N / 4][N / 4], mx[N / 4][N / 4], ma[N][N];

static float at(float g[N][N], int i, int j) {
  return i >= 0 && i < N && j >= 0 && j < N ? g[i][j] : 0.0f;
}

/* Compares a field read in bulk with the reference. */
static void compare(const char *what, float want[N][N]) {
  int bad = 0;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      check_close(what, (size_t)(i * N + j), got[i][j], want[i][j], 1e-6, 1e-6,
                  &bad);
  tic_test_failures += bad != 0;
}

int main(void) {
  sparse_neighbours_ctx *ctx = NULL;
  CHECK(sparse_neighbours_create(NULL, &ctx));
  /* A scattered pattern, blocks at every kind of edge (neighbours stay
   * inside the grid: an index outside it is undefined behaviour). */
  for (int k = 0; k < 300; ++k) {
    int i = 8 + (k * 37) % 48, j = 8 + (k * 11 + k / 7) % 48;
    float w = (float)(k % 9 + 1);
    U[i][j] = A[i][j] = X[i][j] = w;
    mu[i / 4][j / 4] = mx[i / 4][j / 4] = 1;
    ma[i][j] = 1;
    CHECK(sparse_neighbours_u_set(ctx, i, j, w));
    CHECK(sparse_neighbours_a_set(ctx, i, j, w));
    CHECK(sparse_neighbours_x_set(ctx, i, j, w));
  }
  /* Pull over the elements of active bitmasked cells. */
  CHECK(sparse_neighbours_pull(ctx));
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      V[i][j] = mu[i / 4][j / 4]
                    ? at(U, i - 1, j) + 2.0f * at(U, i + 1, j) +
                          3.0f * at(U, i, j - 1) + 4.0f * at(U, i, j + 2) +
                          5.0f * at(U, i + 5, j - 3) - U[i][j]
                    : 0.0f;
  CHECK(sparse_neighbours_v_read(ctx, &got[0][0], (size_t)N * N));
  compare("v", V);
  /* Pull over single cells. */
  CHECK(sparse_neighbours_pull_cells(ctx));
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      B[i][j] = ma[i][j] ? at(A, i - 1, j) + 2.0f * at(A, i + 1, j) +
                               3.0f * at(A, i, j - 1) + 4.0f * at(A, i, j + 1) +
                               5.0f * at(A, i + 1, j + 1)
                         : 0.0f;
  CHECK(sparse_neighbours_b_read(ctx, &got[0][0], (size_t)N * N));
  compare("b", B);
  /* Push: the values, and the bitmasked cells the writes activated. */
  CHECK(sparse_neighbours_push(ctx));
  static const int di[4] = {1, -1, 0, 0}, dj[4] = {0, 0, 3, -4};
  static const float f[4] = {1, 2, 3, 4};
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      if (X[i][j] == 0.0f)
        continue;
      for (int d = 0; d < 4; ++d) {
        int p = i + di[d], q = j + dj[d];
        if (p < 0 || p >= N || q < 0 || q >= N)
          continue;
        Y[p][q] += f[d] * X[i][j];
        mx[p / 4][q / 4] = 1;
      }
    }
  CHECK(sparse_neighbours_y_read(ctx, &got[0][0], (size_t)N * N));
  compare("y", Y);
  int want = 0, n = -1;
  for (int i = 0; i < N / 4; ++i)
    for (int j = 0; j < N / 4; ++j)
      want += mx[i][j];
  CHECK(sparse_neighbours_cells_mx(ctx, &n));
  EXPECT_TRUE(n == want);
  want = 0;
  for (int i = 0; i < N / 4; ++i)
    for (int j = 0; j < N / 4; ++j)
      want += mu[i][j];
  CHECK(sparse_neighbours_cells_mu(ctx, &n));
  EXPECT_TRUE(n == want);
  sparse_neighbours_destroy(ctx);
  return TEST_RESULT();
}
