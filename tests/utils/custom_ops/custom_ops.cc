// Test custom operators: a relu and a two-output op with attrs (sampan's cpp_extension tests).
#include <cmath>
#include <vector>

#include "paddle/extension.h"

template <typename data_t>
void relu_forward_kernel(const data_t* x, data_t* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = x[i] > 0 ? x[i] : static_cast<data_t>(0);
}

std::vector<paddle::Tensor> ReluForward(const paddle::Tensor& x) {
  PD_CHECK(x.is_cpu(), "custom_relu: x must be on CPU");
  auto out = paddle::empty(x.shape(), x.dtype(), x.place());
  PD_DISPATCH_FLOATING_TYPES(x.type(), "relu_forward", ([&] {
    relu_forward_kernel<data_t>(x.data<data_t>(), out.data<data_t>(), x.numel());
  }));
  return {out};
}

std::vector<paddle::Tensor> ReluBackward(const paddle::Tensor& x, const paddle::Tensor& out,
                                         const paddle::Tensor& grad_out) {
  auto grad_x = paddle::empty(x.shape(), x.dtype(), x.place());
  PD_DISPATCH_FLOATING_TYPES(out.type(), "relu_backward", ([&] {
    const data_t* o = out.data<data_t>();
    const data_t* g = grad_out.data<data_t>();
    data_t* gx = grad_x.data<data_t>();
    for (int64_t i = 0; i < out.numel(); ++i) gx[i] = o[i] > 0 ? g[i] : 0;
  }));
  return {grad_x};
}

PD_BUILD_OP(custom_relu)
    .Inputs({"X"})
    .Outputs({"Out"})
    .SetKernelFn(PD_KERNEL(ReluForward));

PD_BUILD_GRAD_OP(custom_relu)
    .Inputs({"X", "Out", paddle::Grad("Out")})
    .Outputs({paddle::Grad("X")})
    .SetKernelFn(PD_KERNEL(ReluBackward));

// scale_mix(x, y; alpha, power) -> (alpha * x * y, sum over the last axis of x ** power)
std::vector<paddle::Tensor> ScaleMixForward(const paddle::Tensor& x, const paddle::Tensor& y,
                                            float alpha, int power) {
  PD_CHECK(x.shape() == y.shape(), "scale_mix: x and y must have the same shape");
  PD_CHECK(!x.shape().empty(), "scale_mix: x must have at least one dimension");
  auto prod = paddle::empty(x.shape(), x.dtype(), x.place());
  const std::vector<int64_t> xshape = x.shape();
  std::vector<int64_t> rshape(xshape.begin(), xshape.end() - 1);
  auto red = paddle::empty(rshape, x.dtype(), x.place());
  int64_t inner = x.shape().back();
  PD_DISPATCH_FLOATING_TYPES(x.type(), "scale_mix", ([&] {
    const data_t* a = x.data<data_t>();
    const data_t* b = y.data<data_t>();
    data_t* p = prod.data<data_t>();
    data_t* r = red.data<data_t>();
    for (int64_t i = 0; i < x.numel(); ++i) p[i] = static_cast<data_t>(alpha) * a[i] * b[i];
    for (int64_t i = 0; i < red.numel(); ++i) {
      data_t s = 0;
      for (int64_t j = 0; j < inner; ++j) s += std::pow(a[i * inner + j], power);
      r[i] = s;
    }
  }));
  return {prod, red};
}

std::vector<paddle::Tensor> ScaleMixBackward(const paddle::Tensor& x, const paddle::Tensor& y,
                                             const paddle::Tensor& grad_prod,
                                             const paddle::Tensor& grad_red, float alpha,
                                             int power) {
  auto gx = paddle::zeros(x.shape(), x.dtype(), x.place());
  auto gy = paddle::zeros(y.shape(), y.dtype(), y.place());
  int64_t inner = x.shape().back();
  PD_DISPATCH_FLOATING_TYPES(x.type(), "scale_mix_grad", ([&] {
    const data_t* a = x.data<data_t>();
    const data_t* b = y.data<data_t>();
    data_t* dx = gx.data<data_t>();
    data_t* dy = gy.data<data_t>();
    if (grad_prod.initialized()) {  // no gradient reached `Prod`: skip its terms
      const data_t* g = grad_prod.data<data_t>();
      for (int64_t i = 0; i < x.numel(); ++i) {
        dx[i] += static_cast<data_t>(alpha) * b[i] * g[i];
        dy[i] += static_cast<data_t>(alpha) * a[i] * g[i];
      }
    }
    if (grad_red.initialized()) {
      const data_t* g = grad_red.data<data_t>();
      for (int64_t i = 0; i < x.numel(); ++i) {
        dx[i] += g[i / inner] * power * std::pow(a[i], power - 1);
      }
    }
  }));
  return {gx, gy};
}

std::vector<std::vector<int64_t>> ScaleMixInferShape(std::vector<int64_t> x_shape,
                                                     std::vector<int64_t> y_shape,
                                                     float alpha, int power) {
  PD_CHECK(!x_shape.empty(), "scale_mix: x must have at least one dimension");
  return {x_shape, std::vector<int64_t>(x_shape.begin(), x_shape.end() - 1)};
}

std::vector<paddle::DataType> ScaleMixInferDtype(paddle::DataType x_dtype,
                                                 paddle::DataType y_dtype) {
  return {x_dtype, x_dtype};
}

PD_BUILD_OP(scale_mix)
    .Inputs({"X", "Y"})
    .Outputs({"Prod", "Red"})
    .Attrs({"alpha: float", "power: int"})
    .SetKernelFn(PD_KERNEL(ScaleMixForward))
    .SetInferShapeFn(PD_INFER_SHAPE(ScaleMixInferShape))
    .SetInferDtypeFn(PD_INFER_DTYPE(ScaleMixInferDtype));

PD_BUILD_GRAD_OP(scale_mix)
    .Inputs({"X", "Y", paddle::Grad("Prod"), paddle::Grad("Red")})
    .Outputs({paddle::Grad("X"), paddle::Grad("Y")})
    .Attrs({"alpha: float", "power: int"})
    .SetKernelFn(PD_KERNEL(ScaleMixBackward));

// list_sum(Vec X) -> Out: the sum of a list of same-shaped tensors (a paddle::Vec input)
std::vector<paddle::Tensor> ListSumForward(const std::vector<paddle::Tensor>& xs) {
  PD_CHECK(!xs.empty(), "list_sum: X must hold at least one tensor");
  auto out = paddle::zeros(xs[0].shape(), xs[0].dtype());
  PD_DISPATCH_FLOATING_TYPES(xs[0].type(), "list_sum", ([&] {
    for (const auto& x : xs) {
      PD_CHECK(x.shape() == xs[0].shape(), "list_sum: all tensors must have one shape");
      for (int64_t i = 0; i < x.numel(); ++i) out.data<data_t>()[i] += x.data<data_t>()[i];
    }
  }));
  return {out};
}

std::vector<paddle::Tensor> ListSumBackward(const std::vector<paddle::Tensor>& xs,
                                            const paddle::Tensor& grad_out) {
  std::vector<paddle::Tensor> grads;
  for (size_t k = 0; k < xs.size(); ++k) {
    auto g = paddle::empty(grad_out.shape(), grad_out.dtype());
    PD_DISPATCH_FLOATING_TYPES(grad_out.type(), "list_sum_grad", ([&] {
      for (int64_t i = 0; i < g.numel(); ++i) {
        g.data<data_t>()[i] = static_cast<data_t>(k + 1) * grad_out.data<data_t>()[i];
      }
    }));
    grads.push_back(g);
  }
  return grads;
}

std::vector<std::vector<int64_t>> ListSumInferShape(
    const std::vector<std::vector<int64_t>>& shapes) {
  return {shapes.at(0)};
}

std::vector<paddle::DataType> ListSumInferDtype(const std::vector<paddle::DataType>& dtypes) {
  return {dtypes.at(0)};
}

PD_BUILD_OP(list_sum)
    .Inputs({paddle::Vec("X")})
    .Outputs({"Out"})
    .SetKernelFn(PD_KERNEL(ListSumForward))
    .SetInferShapeFn(PD_INFER_SHAPE(ListSumInferShape))
    .SetInferDtypeFn(PD_INFER_DTYPE(ListSumInferDtype));

// the grad deliberately weights input k by (k + 1), so the test sees the kernel's rule
PD_BUILD_GRAD_OP(list_sum)
    .Inputs({paddle::Vec("X"), paddle::Grad("Out")})
    .Outputs({paddle::Grad(paddle::Vec("X"))})
    .SetKernelFn(PD_KERNEL(ListSumBackward));
