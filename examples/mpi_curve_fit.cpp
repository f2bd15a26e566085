// SPDX-License-Identifier: BSL-1.0
// Least squares over rows spread across MPI ranks: fitting y = a exp(-b t) + c to 10,000 points. Each
// rank sums the squared errors over its slice of the rows, and one MPI_Allreduce adds the ranks' sums
// and gradients into those of all the rows, since the gradient of a sum is the sum of the gradients.
// Rank 0 then fits again in one process over all the rows, and the program fails if the two disagree.
// Run: mpiexec -n 2 ./example_mpi_curve_fit
#include <tapeless/tapeless.hpp>

#include <mpi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <random>
#include <span>
#include <vector>

namespace tl = tapeless;

namespace {

constexpr std::size_t n = 10000;  // rows over all the ranks
constexpr int steps = 50;
constexpr double rate = 0.3;

/// The sum of the squared errors of the model over the rows (t[i], y[i]) and its gradient in the
/// parameters (a, b, c): {sum, d/da, d/db, d/dc}.
std::array<double, 4> sum_and_grad(std::span<const double> t, std::span<const double> y,
                                   const std::array<double, 3>& p) {
  const auto squared_error = [](const auto& ti, const auto& yi, const auto& a, const auto& b, const auto& c) {
    return tl::square(a * tl::exp(-b * ti) + c - yi);
  };
  const auto [sum, g] = tl::value_and_grad([&](const auto& a, const auto& b, const auto& c) {
    return tl::sum_over(tl::rows(t, y), squared_error, a, b, c);
  })(p[0], p[1], p[2]);
  const auto [da, db, dc] = g;
  return {sum, da, db, dc};
}

/// Gradient descent on the mean squared error from (1.5, 0.5, 0.1), given the sum and gradient over
/// all the rows as sum_and_grad above returns them: {mean squared error, a, b, c} after the steps.
template <class SumAndGrad>
std::array<double, 4> fit(const SumAndGrad& all_rows) {
  std::array<double, 3> p{1.5, 0.5, 0.1};
  for (int step = 0; step < steps; ++step) {
    const auto s = all_rows(p);
    for (std::size_t k = 0; k < p.size(); ++k) p[k] -= rate * s[k + 1] / n;
  }
  return {all_rows(p)[0] / n, p[0], p[1], p[2]};
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);

  // The data: y = 2 exp(-0.7 t) + 0.3 with noise. Every rank makes all of it here, so that rank 0 can
  // check the result; a program reading a file would read only its own slice.
  std::vector<double> t(n);
  std::vector<double> y(n);
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> noise(-0.01, 0.01);
  for (std::size_t i = 0; i < n; ++i) {
    t[i] = 5.0 * static_cast<double>(i) / n;
    y[i] = 2.0 * std::exp(-0.7 * t[i]) + 0.3 + noise(random);
  }

  // This rank's slice of the rows: [first, last), the rows split as evenly as they go.
  const std::size_t first = n * static_cast<std::size_t>(rank) / static_cast<std::size_t>(ranks);
  const std::size_t last = n * static_cast<std::size_t>(rank + 1) / static_cast<std::size_t>(ranks);
  const std::span<const double> my_t = std::span(t).subspan(first, last - first);
  const std::span<const double> my_y = std::span(y).subspan(first, last - first);

  const auto on_all_ranks = fit([&](const std::array<double, 3>& p) {
    auto s = sum_and_grad(my_t, my_y, p);
    MPI_Allreduce(MPI_IN_PLACE, s.data(), static_cast<int>(s.size()), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return s;
  });

  int status = 0;
  if (rank == 0) {
    const auto in_one_process = fit([&](const std::array<double, 3>& p) { return sum_and_grad(t, y, p); });
    // The ranks add the same terms grouped otherwise, so the two agree to rounding, not bit for bit.
    double worst = 0;
    for (std::size_t k = 0; k < on_all_ranks.size(); ++k)
      worst = std::max(worst, std::abs(on_all_ranks[k] - in_one_process[k]) / std::abs(in_one_process[k]));
    std::printf("%d ranks, %zu rows, %d steps: a = %.6f, b = %.6f, c = %.6f, mean squared error %.3e\n", ranks, n,
                steps, on_all_ranks[1], on_all_ranks[2], on_all_ranks[3], on_all_ranks[0]);
    std::printf("one process: the same to %.1e relative\n", worst);
    status = worst <= 1e-12 ? 0 : 1;
  }
  MPI_Finalize();
  return status;
}
