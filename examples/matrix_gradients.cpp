// SPDX-License-Identifier: BSL-1.0
// Gradients with respect to matrices: each has the type and shape of its argument.
#include <tapeless/tapeless.hpp>

#include <cmath>
#include <cstddef>
#include <cstdio>

namespace tl = tapeless;

template <class M>
void print(const char* name, const M& m) {
  std::printf("%s =\n", name);
  for (std::size_t i = 0; i < m.rows(); ++i) {
    for (std::size_t j = 0; j < m.cols(); ++j) std::printf(" %8.3f", m(i, j));
    std::printf("\n");
  }
}

int main() {
  // The sum of squares: d/dx sum(x^2) = 2x.
  const tl::vector<double, 3> x{1.0, 2.0, 3.0};
  const tl::vector<double, 3> gx = tl::grad([](const auto& v) { return tl::sum(tl::pow(v, 2.0)); })(x);
  print("d/dx sum(x^2) at x = (1, 2, 3)", gx);

  // sum(A A): the gradient is G A^T + A^T G with G all ones.
  const tl::matrix<double, 2, 2> A{{1, 2}, {3, 4}};
  const auto f = [](const auto& M) { return tl::sum(tl::matmul(M, M)); };
  const tl::matrix<double, 2, 2> gA = tl::grad(f)(A);
  print("d/dA sum(A A) at A = [[1, 2], [3, 4]]", gA);

  // The same gradient at compile time.
  constexpr auto cgA = tl::grad(f)(tl::matrix<double, 2, 2>{{1, 2}, {3, 4}});
  static_assert(cgA == tl::matrix<double, 2, 2>{{7, 11}, {9, 13}});
  // log det S of a symmetric positive-definite S: the gradient is S^-1 = [[3, -1], [-1, 4]] / 11.
  const tl::matrix<double, 2, 2> S{{4, 1}, {1, 3}};
  const tl::matrix<double, 2, 2> gS = tl::grad([](const auto& M) { return tl::log_det(M); })(S);
  print("d/dS log det S at S = [[4, 1], [1, 3]]", gS);
  const tl::matrix<double, 2, 2> want{{3.0 / 11, -1.0 / 11}, {-1.0 / 11, 4.0 / 11}};
  bool log_det_ok = true;
  for (std::size_t i = 0; i < 4; ++i) log_det_ok = log_det_ok && std::abs(gS[i] - want[i]) < 1e-15;

  return gx == tl::vector<double, 3>{2.0, 4.0, 6.0} && gA == cgA && log_det_ok ? 0 : 1;
}
