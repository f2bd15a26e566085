// SPDX-License-Identifier: BSL-1.0
// Logistic regression by gradient descent: the loss is written once, over matrices, and tl::grad
// gives its gradient with respect to the weights. The data are generated from known weights.
#include <tapeless/tapeless.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>

namespace tl = tapeless;

namespace {

constexpr std::size_t samples = 200, features = 3;

/// A small deterministic generator of uniform numbers in [-1, 1).
struct uniform {
  std::uint64_t state = 7;
  double operator()() {
    state = 6364136223846793005ULL * state + 1442695040888963407ULL;
    return static_cast<double>(state >> 11) * 0x1.0p-52 - 1.0;
  }
};

}  // namespace

int main() {
  // Features in [-1, 1), the last one a constant 1 (the intercept); labels from known weights plus noise.
  const tl::vector<double, features> truth{2.0, -3.0, 0.5};
  tl::matrix<double, samples, features> X;
  tl::vector<double, samples> y;
  uniform u;
  for (std::size_t i = 0; i < samples; ++i) {
    X(i, 0) = u();
    X(i, 1) = u();
    X(i, 2) = 1.0;
    double z = 0.3 * u();
    for (std::size_t j = 0; j < features; ++j) z += X(i, j) * truth[j];
    y[i] = z > 0 ? 1.0 : 0.0;
  }

  // The mean cross-entropy; X and y outlive every gradient call, so they are used by reference.
  auto loss = [&X, &y](const auto& beta) {
    auto p = tl::sigmoid(tl::matmul(tl::cref(X), beta));
    return -tl::mean(tl::cref(y) * tl::log(p) + (1.0 - tl::cref(y)) * tl::log(1.0 - p));
  };
  const auto step = tl::value_and_grad(loss);

  tl::vector<double, features> beta{};
  double first = 0, last = 0;
  for (int k = 0; k <= 1000; ++k) {
    const auto [value, g] = step(beta);
    if (k == 0) first = value;
    last = value;
    if (k % 200 == 0)
      std::printf("step %4d: loss %.6f  beta = (%+.3f, %+.3f, %+.3f)\n", k, value, beta[0], beta[1], beta[2]);
    beta -= 2.0 * g;
  }

  std::size_t right = 0;
  for (std::size_t i = 0; i < samples; ++i) {
    double z = 0;
    for (std::size_t j = 0; j < features; ++j) z += X(i, j) * beta[j];
    right += (z > 0) == (y[i] > 0.5);
  }
  const double accuracy = static_cast<double>(right) / samples;
  std::printf("accuracy on the training data: %.1f%%\n", 100 * accuracy);
  // The example is also a test: the loss must fall and the classifier must have learned something.
  return last < 0.5 * first && accuracy > 0.9 ? 0 : 1;
}
