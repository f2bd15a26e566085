// SPDX-License-Identifier: BSL-1.0
// A logistic regression fitted to data held in Eigen: the features an Eigen::MatrixXd whose row count
// comes from the input, read in place as rows of 3; the weights an Eigen::Vector3d, whose gradient
// comes back as one.
#include <Eigen/Core>
#include <tapeless/tapeless.hpp>

#include <cmath>
#include <cstdio>
#include <sstream>
#include <vector>

namespace tl = tapeless;

// Points (x1, x2, x3, label), as a file would hold them; the label is 1 where x1 + 2 x2 - x3 > 0.5.
constexpr const char* points_file = R"(0.9 0.3 0.1 1
0.1 0.2 0.8 0
0.7 0.6 0.2 1
0.2 0.1 0.3 0
0.5 0.9 0.4 1
0.3 0.2 0.9 0
0.8 0.1 0.1 1
0.1 0.4 0.6 0
)";

int main() {
  std::istringstream file(points_file);
  std::vector<double> numbers;
  for (double v = 0; file >> v;) numbers.push_back(v);
  const auto n = static_cast<Eigen::Index>(numbers.size() / 4);
  Eigen::MatrixXd X(n, 3);  // column-major, as Eigen keeps it
  Eigen::VectorXd y(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    X.row(i) << numbers[4 * i], numbers[4 * i + 1], numbers[4 * i + 2];
    y(i) = numbers[4 * i + 3];
  }

  auto loss = [&](const auto& w, const auto& b) {
    return tl::mean_over(
        tl::rows(tl::row_vectors<3>(X), y),  // row i: (a tl::vector<double, 3> of X's row i, y(i))
        [](const auto& xi, const auto& yi, const auto& w, const auto& b) {
          const auto z = tl::dot(w, xi) + b;
          return tl::softplus(z) - yi * z;  // -log likelihood of yi given sigmoid(z)
        },
        w, b);
  };
  auto gradient = tl::grad(loss);  // made once, called at every step
  Eigen::Vector3d w = Eigen::Vector3d::Zero();
  double b = 0.0;
  for (int step = 0; step < 2000; ++step) {
    const auto [gw, gb] = gradient(w, b);  // gw is an Eigen::Vector3d
    w -= 2.0 * gw;
    b -= 2.0 * gb;
  }
  int correct = 0;
  for (Eigen::Index i = 0; i < n; ++i) correct += ((X.row(i).dot(w) + b > 0) == (y(i) > 0.5)) ? 1 : 0;
  std::printf("w = (%.2f, %.2f, %.2f), b = %.2f: %d of %d points classified correctly\n", w(0), w(1), w(2), b, correct,
              static_cast<int>(n));
  return correct == n ? 0 : 1;
}
