// SPDX-License-Identifier: BSL-1.0
// Shared transforms called from 8 threads at once: grad, value_and_grad and hessian of shared function
// objects, 100000 calls in all, every result equal, bit for bit, to the single-threaded one. A transform
// holds no mutable state, so there is nothing to race on; the ThreadSanitizer build of this test
// (`bash test/run.sh tsan`) is what proves it.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <sanitizers.hpp>

#include <array>
#include <atomic>
#include <cstddef>
#include <thread>
#include <tuple>
#include <vector>

namespace tl = tapeless;

namespace {

constexpr std::size_t threads = 8;
// In all, over every thread and transform; a tenth under AddressSanitizer, whose build looks for memory
// errors, not races (the ThreadSanitizer build makes every call).
constexpr std::size_t calls = test_support::points_to_run(100000);
constexpr std::size_t points = 64;

const tl::matrix<double, 3, 3> data{{1.0, 0.5, -0.25}, {0.1, -1.0, 2.0}, {0.3, 0.2, 0.7}};

// A loss over a vector and a number, with data captured by reference and let-shared intermediates.
const auto loss = [](const auto& w, const auto& s) {
  return tl::let(tl::tanh(tl::matmul(tl::cref(data), w) * s),
                 [&](const auto& h) { return tl::log_sum_exp(h) + 0.5 * tl::squared_norm(w) * s + tl::sum(h * h); });
};

struct point {
  tl::vector<double, 3> w;
  double s;
};

struct results {
  std::tuple<tl::vector<double, 3>, double> g;
  std::pair<double, std::tuple<tl::vector<double, 3>, double>> vg;
  decltype(tl::hessian(loss)(tl::vector<double, 3>{}, 1.0)) h;
};

}  // namespace

TEST_CASE("grad, value_and_grad and hessian of shared function objects from 8 threads agree with one thread") {
  const auto grad = tl::grad(loss);
  const auto value_and_grad = tl::value_and_grad(loss);
  const auto hessian = tl::hessian(loss);
  const auto all = [&](const point& p) { return results{grad(p.w, p.s), value_and_grad(p.w, p.s), hessian(p.w, p.s)}; };

  std::array<point, points> at{};
  std::array<results, points> expected{};
  for (std::size_t i = 0; i < points; ++i) {
    const double t = static_cast<double>(i) / points;
    at[i] = {{t - 0.5, 1.0 - 2.0 * t, 0.25 + t * t}, 0.5 + t};
    expected[i] = all(at[i]);
  }

  // One transform per call, in turn, each thread from its own point, so that they overlap on all of them.
  const auto call_agrees = [&](std::size_t c, const point& p, const results& want) {
    switch (c % 3) {
      case 0: return grad(p.w, p.s) == want.g;
      case 1: return value_and_grad(p.w, p.s) == want.vg;
      default: return hessian(p.w, p.s) == want.h;
    }
  };
  std::atomic<std::size_t> mismatches{0}, done{0};
  std::vector<std::thread> pool;
  for (std::size_t k = 0; k < threads; ++k)
    pool.emplace_back([&, k] {
      for (std::size_t c = 0; c < calls / threads; ++c) {
        const std::size_t i = (c / 3 + k * 7) % points;
        if (!call_agrees(c, at[i], expected[i])) ++mismatches;
        ++done;
      }
    });
  for (auto& t : pool) t.join();
  CHECK(done == calls);
  CHECK(mismatches == 0);
}
