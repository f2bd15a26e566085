// SPDX-License-Identifier: BSL-1.0
// bench/pairs_bench.cpp: S15 lennard_jones, a sum over the pairs of 64 particles: tapeless's
// tl::sum_over over tl::pairs(n), n read at run time, beside the hand-written forces (the double loop
// over the pairs, each pair's force added to both particles) and the tape-based peers.
#include "cases.hpp"
#include "suite.hpp"

#include <tapeless/tapeless.hpp>

#include <array>
#include <cstddef>
#include <string>
#include <tuple>

namespace tl = tapeless;

namespace {

using namespace tapeless_bench;

// ---------------------------------------------------------------------------------------------
// S15 lennard_jones: f(p) = sum over pairs i < j of 4 (r^-12 - r^-6), r = |p_i - p_j|, p: 64 x 3,
// p_i = 1.2 (a, b, c) + 0.1 (2u - 1) per coordinate for lattice point i = 16 a + 4 b + c of a 4 x 4 x 4 grid.

inline constexpr std::size_t s15_n = 64;
using s15_positions = tl::matrix<double, s15_n, 3>;

struct s15_in {
  s15_positions p;
  std::size_t n;  // the particles the pairs range over, read at run time
};

inline s15_in s15_inputs() {
  tapeless_bench::input_stream u;
  s15_in in{{}, s15_n};
  for (std::size_t i = 0; i < s15_n; ++i) {
    const std::array<std::size_t, 3> lattice{i / 16, i / 4 % 4, i % 4};
    for (std::size_t d = 0; d < 3; ++d) in.p(i, d) = 1.2 * static_cast<double>(lattice[d]) + 0.1 * u.uniform(-1.0, 1.0);
  }
  return in;
}

TAPELESS_BENCH_KERNEL s15_positions s15_handwritten(const s15_in& in) {
  // Per pair: d = p_i - p_j, s = 1 / |d|^2, e = 4 (s^6 - s^3); de/d(|d|^2) = (12 s^3 - 24 s^6) s, and
  // p_i_bar += 2 de/d(|d|^2) d, p_j_bar -= the same: the force on one particle and its reaction.
  const auto& p = in.p;
  s15_positions g;
  for (std::size_t i = 0; i < in.n; ++i)
    for (std::size_t j = i + 1; j < in.n; ++j) {
      const double dx = p(i, 0) - p(j, 0), dy = p(i, 1) - p(j, 1), dz = p(i, 2) - p(j, 2);
      const double s = 1.0 / (dx * dx + dy * dy + dz * dz);
      const double s3 = s * s * s;
      const double w = 2.0 * (12.0 * s3 - 24.0 * s3 * s3) * s;
      g(i, 0) += w * dx;
      g(i, 1) += w * dy;
      g(i, 2) += w * dz;
      g(j, 0) -= w * dx;
      g(j, 1) -= w * dy;
      g(j, 2) -= w * dz;
    }
  return g;
}

TAPELESS_BENCH_KERNEL s15_positions s15_tapeless(const s15_in& in) {
  const std::size_t n = in.n;
  return tl::grad([n](const auto& p) {
    return tl::sum_over(
        tl::pairs(n),
        [](const auto& i, const auto& j, const auto& p) {
          return tl::let(tl::row(p, i) - tl::row(p, j), [](const auto& d) {
            return tl::let(1.0 / tl::sum(tl::square(d)), [](const auto& s) {
              return tl::let(s * s * s, [](const auto& s3) { return 4.0 * (s3 * s3 - s3); });
            });
          });
        },
        p);
  })(in.p);
}

struct s15 : tapeless_bench::kernels<s15_inputs, s15_handwritten, s15_tapeless> {
  static std::string name() { return "S15_lennard_jones"; }
  // Forward mode would carry 192 derivatives through each of the 2,016 pairs: the tapes, Sacado's
  // reverse mode, and central differences, which check the hand-written forces.
  using peer_list =
      std::tuple<adolc::peer<adolc::mode::tape>, adolc::peer<adolc::mode::retape>, sacado::rad, finite_diff>;
  static std::array<double, 3 * s15_n> numbers(const s15_in& in) { return tapeless_bench::numbers(in.p); }
  template <class T>
  static T f(const std::array<T, 3 * s15_n>& p, const s15_in& in) {
    T value = 0.0;
    for (std::size_t i = 0; i < in.n; ++i)
      for (std::size_t j = i + 1; j < in.n; ++j) {
        const T dx = p[3 * i] - p[3 * j], dy = p[3 * i + 1] - p[3 * j + 1], dz = p[3 * i + 2] - p[3 * j + 2];
        const T s = 1.0 / (dx * dx + dy * dy + dz * dz);
        const T s3 = s * s * s;
        value += 4.0 * (s3 * s3 - s3);
      }
    return value;
  }
};

}  // namespace

int main(int argc, char** argv) { return tapeless_bench::run<s15>(argc, argv); }
