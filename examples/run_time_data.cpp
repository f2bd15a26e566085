// SPDX-License-Identifier: BSL-1.0
// Sums over data of run-time length: least squares over the points a file holds, and the loss of a
// mini-batch, each the gradient of a tl::sum_over or tl::mean_over over tl::rows of the data.
#include <tapeless/tapeless.hpp>

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <span>
#include <sstream>
#include <vector>

namespace tl = tapeless;

// Points (t, y) near y = 2 exp(-0.7 t) + 0.3, as a file would hold them.
constexpr const char* points_file = R"(0.0 2.31
0.5 1.72
1.0 1.29
1.5 1.02
2.0 0.79
2.5 0.66
3.0 0.55
3.5 0.47
4.0 0.42
4.5 0.39
5.0 0.36
)";

int main() {
  // Least squares over a file's worth of points: their count is known once the file is read.
  std::istringstream file(points_file);
  std::vector<double> t, y;
  for (double ti = 0, yi = 0; file >> ti >> yi;) {
    t.push_back(ti);
    y.push_back(yi);
  }
  auto loss = [&](const auto& a, const auto& b, const auto& c) {
    return tl::sum_over(
        tl::rows(t, y),
        [](const auto& ti, const auto& yi, const auto& a, const auto& b, const auto& c) {
          return tl::square(a * tl::exp(-b * ti) + c - yi);
        },
        a, b, c);
  };
  auto gradient = tl::grad(loss);  // made once, called at every step
  double a = 1.0, b = 1.0, c = 0.0;
  for (int step = 0; step < 20000; ++step) {
    const auto [ga, gb, gc] = gradient(a, b, c);
    a -= 0.05 * ga;
    b -= 0.05 * gb;
    c -= 0.05 * gc;
  }
  std::printf("fit: y = %.2f exp(-%.2f t) + %.2f, loss %.5f over %zu points\n", a, b, c, loss(a, b, c), t.size());

  // The loss of a mini-batch: a mean over the batch's rows of features and labels, views of the data.
  const std::size_t n = 1000, batch = 100;
  std::vector<tl::vector<double, 3>> x(n);
  std::vector<double> label(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = {1.0, std::sin(0.37 * static_cast<double>(i)), std::cos(0.91 * static_cast<double>(i))};
    label[i] = x[i][1] - 0.5 * x[i][2] > 0.1 ? 1.0 : 0.0;
  }
  const auto log_loss = [](const auto& xi, const auto& yi, const auto& w) {
    const auto z = tl::dot(xi, w);
    return tl::log1p(tl::exp(z)) - yi * z;  // -log p(yi | xi) of a logistic model
  };
  auto batch_loss = [&](std::size_t first) {
    return [&, first](const auto& w) {
      return tl::mean_over(tl::rows(std::span(x).subspan(first, batch), std::span(label).subspan(first, batch)),
                           log_loss, w);
    };
  };
  tl::vector<double, 3> w{};
  for (int epoch = 0; epoch < 50; ++epoch)
    for (std::size_t first = 0; first < n; first += batch) {
      const auto g = tl::grad(batch_loss(first))(w);
      for (std::size_t k = 0; k < 3; ++k) w[k] -= 0.5 * g[k];
    }
  const double mean_loss = tl::mean_over(tl::rows(x, label), log_loss, w);
  std::printf("logistic regression: mean loss %.3f over %zu rows\n", mean_loss, n);
}
