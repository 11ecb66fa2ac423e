// sampan's C++ custom-operator API: the subset of Paddle's documented `paddle/extension.h`
// (paddle::Tensor, paddle::empty, PD_BUILD_OP / PD_BUILD_GRAD_OP, PD_KERNEL, PD_INFER_SHAPE,
// PD_INFER_DTYPE, PD_DISPATCH_FLOATING_TYPES, PD_CHECK, paddle::Grad, paddle::Vec).
// Written for sampan; the C ABI that Python calls through ctypes lives in sampan_bridge.cc.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace paddle {

enum class DataType {
  UNDEFINED = 0, BOOL, INT8, UINT8, INT16, INT32, INT64, FLOAT16, BFLOAT16, FLOAT32, FLOAT64,
  COMPLEX64, COMPLEX128
};

inline const char* DataTypeName(DataType t) {
  static const char* names[] = {"undefined", "bool", "int8", "uint8", "int16", "int32",
                                "int64", "float16", "bfloat16", "float32", "float64",
                                "complex64", "complex128"};
  return names[static_cast<int>(t)];
}

inline std::ostream& operator<<(std::ostream& os, DataType t) { return os << DataTypeName(t); }

inline size_t SizeOf(DataType t) {
  switch (t) {
    case DataType::BOOL: case DataType::INT8: case DataType::UINT8: return 1;
    case DataType::INT16: case DataType::FLOAT16: case DataType::BFLOAT16: return 2;
    case DataType::INT32: case DataType::FLOAT32: return 4;
    case DataType::INT64: case DataType::FLOAT64: case DataType::COMPLEX64: return 8;
    case DataType::COMPLEX128: return 16;
    default: return 0;
  }
}

template <typename T> struct CppTypeToDataType;
#define PD_SAMPAN_TYPE_MAP(cpp, dt) \
  template <> struct CppTypeToDataType<cpp> { static constexpr DataType value = DataType::dt; };
PD_SAMPAN_TYPE_MAP(bool, BOOL)
PD_SAMPAN_TYPE_MAP(int8_t, INT8)
PD_SAMPAN_TYPE_MAP(uint8_t, UINT8)
PD_SAMPAN_TYPE_MAP(int16_t, INT16)
PD_SAMPAN_TYPE_MAP(int32_t, INT32)
PD_SAMPAN_TYPE_MAP(int64_t, INT64)
PD_SAMPAN_TYPE_MAP(float, FLOAT32)
PD_SAMPAN_TYPE_MAP(double, FLOAT64)
#undef PD_SAMPAN_TYPE_MAP

// ---- errors ---------------------------------------------------------------------------------

namespace detail {
inline void Concat(std::ostringstream&) {}
template <typename T, typename... Rest>
void Concat(std::ostringstream& os, const T& v, const Rest&... rest) {
  os << v;
  Concat(os, rest...);
}
template <typename... Args>
std::string Message(const Args&... args) {
  std::ostringstream os;
  Concat(os, args...);
  return os.str();
}
}  // namespace detail

#define PD_THROW(...)                                                                  \
  throw std::runtime_error(::paddle::detail::Message(__VA_ARGS__, "\n  [", __FILE__, ":", \
                                                     __LINE__, "]"))

#define PD_CHECK(COND, ...)                                                             \
  do {                                                                                  \
    if (!(COND)) {                                                                      \
      PD_THROW("Expected " #COND ", but it's not satisfied. ", ##__VA_ARGS__);          \
    }                                                                                   \
  } while (0)

// ---- places ---------------------------------------------------------------------------------

enum class PlaceType { kUNK = -1, kCPU = 0, kGPU = 1 };

class Place {
 public:
  Place() = default;
  Place(PlaceType t) : type_(t) {}  // NOLINT: implicit, as Paddle's legacy PlaceType API
  PlaceType GetType() const { return type_; }
  bool operator==(const Place& o) const { return type_ == o.type_; }
  bool operator!=(const Place& o) const { return type_ != o.type_; }

 private:
  PlaceType type_ = PlaceType::kCPU;
};

class CPUPlace : public Place {
 public:
  CPUPlace() : Place(PlaceType::kCPU) {}
};

// ---- Tensor ---------------------------------------------------------------------------------

class Tensor {
 public:
  Tensor() = default;
  Tensor(const Place& place, const std::vector<int64_t>& shape) : impl_(new Impl) {
    impl_->shape = shape;
    (void)place;
  }
  explicit Tensor(const Place& place) : impl_(new Impl) { (void)place; }

  // a view of memory the caller owns (sampan's NumPy buffers)
  static Tensor FromBuffer(void* data, std::vector<int64_t> shape, DataType dtype) {
    Tensor t;
    t.impl_ = std::make_shared<Impl>();
    t.impl_->shape = std::move(shape);
    t.impl_->dtype = dtype;
    t.impl_->data = data;
    return t;
  }
  // shape and dtype only (infer functions)
  static Tensor Meta(std::vector<int64_t> shape, DataType dtype) {
    return FromBuffer(nullptr, std::move(shape), dtype);
  }

  // a reference, so that begin()/end() of two calls belong to one vector
  const std::vector<int64_t>& shape() const {
    static const std::vector<int64_t> kNone;
    return impl_ ? impl_->shape : kNone;
  }
  std::vector<int64_t> dims() const { return shape(); }
  int64_t numel() const {
    int64_t n = 1;
    for (auto d : shape()) n *= d;
    return n;
  }
  int64_t size() const { return numel(); }
  DataType dtype() const { return impl_ ? impl_->dtype : DataType::UNDEFINED; }
  DataType type() const { return dtype(); }
  Place place() const { return Place(PlaceType::kCPU); }
  bool is_cpu() const { return true; }
  bool is_gpu() const { return false; }
  bool defined() const { return impl_ != nullptr; }
  bool initialized() const { return impl_ && impl_->data != nullptr; }
  bool is_initialized() const { return initialized(); }

  void reshape(const std::vector<int64_t>& shape) {
    if (!impl_) impl_ = std::make_shared<Impl>();
    impl_->shape = shape;
  }

  template <typename T>
  const T* data() const {
    CheckType<T>("data");
    return static_cast<const T*>(impl_->data);
  }
  template <typename T>
  T* data() {
    CheckType<T>("data");
    return static_cast<T*>(impl_->data);
  }
  void* data() { return impl_ ? impl_->data : nullptr; }
  const void* data() const { return impl_ ? impl_->data : nullptr; }

  template <typename T>
  T* mutable_data(const Place& place = Place()) {
    (void)place;
    PD_CHECK(impl_ != nullptr, "mutable_data: the Tensor has no shape; construct it with one");
    DataType want = CppTypeToDataType<T>::value;
    if (impl_->data == nullptr || impl_->dtype != want) Allocate(want);
    return static_cast<T*>(impl_->data);
  }

  void Allocate(DataType dtype) {
    impl_->dtype = dtype;
    size_t bytes = static_cast<size_t>(numel() > 0 ? numel() : 1) * SizeOf(dtype);
    impl_->holder.reset(std::calloc(bytes, 1), std::free);
    PD_CHECK(impl_->holder != nullptr, "out of memory allocating ", bytes, " bytes");
    impl_->data = impl_->holder.get();
  }

 private:
  struct Impl {
    std::vector<int64_t> shape;
    DataType dtype = DataType::UNDEFINED;
    void* data = nullptr;
    std::shared_ptr<void> holder;  // set when this Tensor owns its memory
  };

  template <typename T>
  void CheckType(const char* api) const {
    PD_CHECK(initialized(), api, "<", DataTypeName(CppTypeToDataType<T>::value),
             ">: the Tensor is not initialized (no gradient reached it)");
    PD_CHECK(impl_->dtype == CppTypeToDataType<T>::value, api, "<",
             DataTypeName(CppTypeToDataType<T>::value), ">: the Tensor holds ",
             DataTypeName(impl_->dtype));
  }

  std::shared_ptr<Impl> impl_;
};

inline Tensor empty(const std::vector<int64_t>& shape, DataType dtype = DataType::FLOAT32,
                    const Place& place = Place()) {
  Tensor t(place, shape);
  t.Allocate(dtype);
  return t;
}

template <typename T>
Tensor full(const std::vector<int64_t>& shape, T value, DataType dtype = DataType::FLOAT32,
            const Place& place = Place()) {
  Tensor t = empty(shape, dtype, place);
  switch (dtype) {
    case DataType::FLOAT32: { auto* p = t.data<float>(); for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<float>(value); break; }  // NOLINT
    case DataType::FLOAT64: { auto* p = t.data<double>(); for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<double>(value); break; }  // NOLINT
    case DataType::INT32: { auto* p = t.data<int32_t>(); for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<int32_t>(value); break; }  // NOLINT
    case DataType::INT64: { auto* p = t.data<int64_t>(); for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<int64_t>(value); break; }  // NOLINT
    default: PD_THROW("paddle::full: unsupported dtype ", dtype);
  }
  return t;
}

inline Tensor zeros(const std::vector<int64_t>& shape, DataType dtype = DataType::FLOAT32,
                    const Place& place = Place()) {
  return empty(shape, dtype, place);  // empty zero-fills
}

// ---- op meta info ---------------------------------------------------------------------------

inline std::string Grad(const std::string& name) { return name + "@GRAD"; }
inline std::string Vec(const std::string& name) { return name + "@VECTOR"; }

// The values a kernel or infer function is called with: one list of Tensors per input slot
// (a list of one for a plain Tensor input) and the attrs in declaration order.
struct SampanAttr {
  int kind = 0;
  bool b = false;
  int64_t i = 0;
  double f = 0;
  std::string s;
  std::vector<int64_t> vi;
  std::vector<double> vf;
  std::vector<std::string> vs;
};

struct CallContext {
  std::vector<std::vector<Tensor>> inputs;
  std::vector<SampanAttr> attrs;
  size_t next_input = 0;
  size_t next_attr = 0;

  const std::vector<Tensor>& Slot(const char* what) {
    PD_CHECK(next_input < inputs.size(), "the function takes more ", what,
             " arguments than the op has inputs (", inputs.size(), ")");
    return inputs[next_input++];
  }
  const SampanAttr& Attr() {
    PD_CHECK(next_attr < attrs.size(), "the function takes more attribute arguments than the "
             "op declares (", attrs.size(), ")");
    return attrs[next_attr++];
  }
  bool HasInputsLeft() const { return next_input < inputs.size(); }
};

template <typename T, typename Enable = void> struct ArgCaster;

template <> struct ArgCaster<Tensor> {
  static Tensor Get(CallContext& c) { return c.Slot("Tensor").at(0); }
};
template <> struct ArgCaster<std::vector<Tensor>> {
  static std::vector<Tensor> Get(CallContext& c) { return c.Slot("Tensor list"); }
};
template <> struct ArgCaster<DataType> {
  static DataType Get(CallContext& c) { return c.Slot("dtype").at(0).dtype(); }
};
template <> struct ArgCaster<std::vector<DataType>> {
  static std::vector<DataType> Get(CallContext& c) {
    std::vector<DataType> out;
    for (auto& t : c.Slot("dtype list")) out.push_back(t.dtype());
    return out;
  }
};
template <> struct ArgCaster<std::vector<std::vector<int64_t>>> {
  static std::vector<std::vector<int64_t>> Get(CallContext& c) {
    std::vector<std::vector<int64_t>> out;
    for (auto& t : c.Slot("shape list")) out.push_back(t.shape());
    return out;
  }
};
// an input's shape (infer shape functions) while inputs are left, then a vector<int64_t> attr
template <> struct ArgCaster<std::vector<int64_t>> {
  static std::vector<int64_t> Get(CallContext& c) {
    if (c.HasInputsLeft()) return c.Slot("shape").at(0).shape();
    return c.Attr().vi;
  }
};
template <typename T>
struct ArgCaster<T, typename std::enable_if<std::is_arithmetic<T>::value>::type> {
  static T Get(CallContext& c) {
    const SampanAttr& a = c.Attr();
    if (a.kind == 0) return static_cast<T>(a.b);
    if (a.kind == 2) return static_cast<T>(a.f);
    return static_cast<T>(a.i);
  }
};
template <> struct ArgCaster<std::string> {
  static std::string Get(CallContext& c) { return c.Attr().s; }
};
template <> struct ArgCaster<std::vector<int>> {
  static std::vector<int> Get(CallContext& c) {
    auto& v = c.Attr().vi;
    return std::vector<int>(v.begin(), v.end());
  }
};
template <> struct ArgCaster<std::vector<float>> {
  static std::vector<float> Get(CallContext& c) {
    auto& v = c.Attr().vf;
    return std::vector<float>(v.begin(), v.end());
  }
};
template <> struct ArgCaster<std::vector<double>> {
  static std::vector<double> Get(CallContext& c) { return c.Attr().vf; }
};
template <> struct ArgCaster<std::vector<std::string>> {
  static std::vector<std::string> Get(CallContext& c) { return c.Attr().vs; }
};

// Calls `f` with its arguments taken from a CallContext in order; the braced tuple
// initialisation fixes left-to-right evaluation, so inputs and attrs are consumed in order.
template <typename F, F f> struct FuncImpl;
template <typename R, typename... Args, R (*f)(Args...)>
struct FuncImpl<R (*)(Args...), f> {
  static R Call(CallContext& c) {
    std::tuple<typename std::decay<Args>::type...> args{
        ArgCaster<typename std::decay<Args>::type>::Get(c)...};
    return std::apply(f, args);
  }
};

using KernelFunc = std::vector<Tensor> (*)(CallContext&);
using InferShapeFunc = std::vector<std::vector<int64_t>> (*)(CallContext&);
using InferDtypeFunc = std::vector<DataType> (*)(CallContext&);

#define PD_KERNEL(...) (&::paddle::FuncImpl<decltype(&__VA_ARGS__), &__VA_ARGS__>::Call)
#define PD_INFER_SHAPE(...) (&::paddle::FuncImpl<decltype(&__VA_ARGS__), &__VA_ARGS__>::Call)
#define PD_INFER_DTYPE(...) (&::paddle::FuncImpl<decltype(&__VA_ARGS__), &__VA_ARGS__>::Call)

struct OpMetaInfo {
  std::string name;
  int grad_level = 0;  // 0 forward, 1 grad op, 2 double grad op
  std::vector<std::string> inputs, outputs, attrs;
  KernelFunc kernel = nullptr;
  InferShapeFunc infer_shape = nullptr;
  InferDtypeFunc infer_dtype = nullptr;
};

// every op of the library, keyed by (name, grad level); defined in sampan_bridge.cc
std::map<std::pair<std::string, int>, OpMetaInfo>& OpMetaInfoMap();

class OpMetaInfoBuilder {
 public:
  OpMetaInfoBuilder(const std::string& name, int grad_level) {
    info_ = &OpMetaInfoMap()[{name, grad_level}];
    info_->name = name;
    info_->grad_level = grad_level;
  }
  OpMetaInfoBuilder& Inputs(std::vector<std::string> v) { info_->inputs = std::move(v); return *this; }
  OpMetaInfoBuilder& Outputs(std::vector<std::string> v) { info_->outputs = std::move(v); return *this; }
  OpMetaInfoBuilder& Attrs(std::vector<std::string> v) { info_->attrs = std::move(v); return *this; }
  OpMetaInfoBuilder& SetKernelFn(KernelFunc f) { info_->kernel = f; return *this; }
  OpMetaInfoBuilder& SetInferShapeFn(InferShapeFunc f) { info_->infer_shape = f; return *this; }
  OpMetaInfoBuilder& SetInferDtypeFn(InferDtypeFunc f) { info_->infer_dtype = f; return *this; }
  OpMetaInfoBuilder& SetInplaceMap(std::map<std::string, std::string>) { return *this; }

 private:
  OpMetaInfo* info_;
};

}  // namespace paddle

#define PD_SAMPAN_CONCAT2(a, b) a##b
#define PD_SAMPAN_CONCAT(a, b) PD_SAMPAN_CONCAT2(a, b)
#define PD_BUILD_OP(op_name)                                                          \
  static ::paddle::OpMetaInfoBuilder PD_SAMPAN_CONCAT(__op_meta_info_##op_name, __LINE__) = \
      ::paddle::OpMetaInfoBuilder(#op_name, 0)
#define PD_BUILD_GRAD_OP(op_name)                                                     \
  static ::paddle::OpMetaInfoBuilder PD_SAMPAN_CONCAT(__grad_op_meta_##op_name, __LINE__) = \
      ::paddle::OpMetaInfoBuilder(#op_name, 1)
#define PD_BUILD_DOUBLE_GRAD_OP(op_name)                                              \
  static ::paddle::OpMetaInfoBuilder PD_SAMPAN_CONCAT(__grad2_op_meta_##op_name, __LINE__) = \
      ::paddle::OpMetaInfoBuilder(#op_name, 2)

#define PD_PRIVATE_CASE_TYPE(NAME, enum_type, type, ...) \
  case enum_type: {                                      \
    using data_t = type;                                 \
    __VA_ARGS__();                                       \
    break;                                               \
  }

#define PD_DISPATCH_FLOATING_TYPES(TYPE, NAME, ...)                                    \
  [&] {                                                                                \
    const auto& __dtype__ = TYPE;                                                      \
    switch (__dtype__) {                                                               \
      PD_PRIVATE_CASE_TYPE(NAME, ::paddle::DataType::FLOAT32, float, __VA_ARGS__)      \
      PD_PRIVATE_CASE_TYPE(NAME, ::paddle::DataType::FLOAT64, double, __VA_ARGS__)     \
      default:                                                                         \
        PD_THROW("function " NAME " is not implemented for data type `", __dtype__, "`"); \
    }                                                                                  \
  }()

#define PD_DISPATCH_FLOATING_AND_INTEGRAL_TYPES(TYPE, NAME, ...)                       \
  [&] {                                                                                \
    const auto& __dtype__ = TYPE;                                                      \
    switch (__dtype__) {                                                               \
      PD_PRIVATE_CASE_TYPE(NAME, ::paddle::DataType::FLOAT32, float, __VA_ARGS__)      \
      PD_PRIVATE_CASE_TYPE(NAME, ::paddle::DataType::FLOAT64, double, __VA_ARGS__)     \
      PD_PRIVATE_CASE_TYPE(NAME, ::paddle::DataType::INT32, int32_t, __VA_ARGS__)      \
      PD_PRIVATE_CASE_TYPE(NAME, ::paddle::DataType::INT64, int64_t, __VA_ARGS__)      \
      default:                                                                         \
        PD_THROW("function " NAME " is not implemented for data type `", __dtype__, "`"); \
    }                                                                                  \
  }()
