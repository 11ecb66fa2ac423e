// The C ABI between a compiled custom-op library and sampan (called through ctypes over
// NumPy buffers). Compiled into every extension next to the user's sources.
#include <cstring>

#include "paddle/extension.h"

namespace paddle {
std::map<std::pair<std::string, int>, OpMetaInfo>& OpMetaInfoMap() {
  static std::map<std::pair<std::string, int>, OpMetaInfo> ops;
  return ops;
}
}  // namespace paddle

extern "C" {

struct SampanTensor {
  void* data;
  const int64_t* shape;
  int32_t ndim;
  int32_t dtype;
};

struct SampanAttrC {
  int32_t kind;  // 0 bool, 1 integer, 2 float, 3 string, 4 int list, 5 float list, 6 str list
  int64_t i;
  double f;
  const char* s;
  const int64_t* vi;
  const double* vf;
  const char* const* vs;
  int64_t len;
};

struct SampanResult {
  std::vector<paddle::Tensor> outs;
  std::vector<std::vector<int64_t>> shapes;
  std::string meta;
};

static std::string Quote(const std::string& s) { return "\"" + s + "\""; }

static std::string List(const std::vector<std::string>& v) {
  std::string out = "[";
  for (size_t k = 0; k < v.size(); ++k) out += (k ? "," : "") + Quote(v[k]);
  return out + "]";
}

// JSON list of the ops this library defines
const char* sampan_ext_meta() {
  static std::string text;
  text = "[";
  bool first = true;
  for (auto& kv : paddle::OpMetaInfoMap()) {
    const paddle::OpMetaInfo& m = kv.second;
    text += first ? "" : ",";
    first = false;
    text += "{\"name\":" + Quote(m.name) + ",\"grad_level\":" + std::to_string(m.grad_level) +
            ",\"inputs\":" + List(m.inputs) + ",\"outputs\":" + List(m.outputs) +
            ",\"attrs\":" + List(m.attrs) + ",\"kernel\":" + (m.kernel ? "true" : "false") +
            ",\"infer_shape\":" + (m.infer_shape ? "true" : "false") +
            ",\"infer_dtype\":" + (m.infer_dtype ? "true" : "false") + "}";
  }
  text += "]";
  return text.c_str();
}

static paddle::SampanAttr ToAttr(const SampanAttrC& a) {
  paddle::SampanAttr out;
  out.kind = a.kind;
  out.b = a.i != 0;
  out.i = a.i;
  out.f = a.f;
  if (a.s) out.s = a.s;
  if (a.vi) out.vi.assign(a.vi, a.vi + a.len);
  if (a.vf) out.vf.assign(a.vf, a.vf + a.len);
  if (a.vs) for (int64_t k = 0; k < a.len; ++k) out.vs.push_back(a.vs[k]);
  return out;
}

// mode 0: run the kernel; 1: infer shapes; 2: infer dtypes. Tensors are given slot by slot
// (slot_sizes[k] tensors for slot k); a tensor with data == NULL is uninitialised.
// Returns 0 and a result handle, or 1 and the error text in `err`.
int sampan_ext_run(const char* op_name, int32_t grad_level, int32_t mode,
                   const SampanTensor* tensors, const int32_t* slot_sizes, int32_t n_slots,
                   const SampanAttrC* attrs, int32_t n_attrs, void** result, char* err,
                   int32_t errlen) {
  try {
    auto it = paddle::OpMetaInfoMap().find({op_name, grad_level});
    PD_CHECK(it != paddle::OpMetaInfoMap().end(), "no op ", op_name, " in this library");
    const paddle::OpMetaInfo& m = it->second;
    paddle::CallContext ctx;
    int32_t pos = 0;
    for (int32_t s = 0; s < n_slots; ++s) {
      std::vector<paddle::Tensor> slot;
      for (int32_t k = 0; k < slot_sizes[s]; ++k, ++pos) {
        const SampanTensor& t = tensors[pos];
        slot.push_back(paddle::Tensor::FromBuffer(
            t.data, std::vector<int64_t>(t.shape, t.shape + t.ndim),
            static_cast<paddle::DataType>(t.dtype)));
      }
      ctx.inputs.push_back(slot);
    }
    for (int32_t k = 0; k < n_attrs; ++k) ctx.attrs.push_back(ToAttr(attrs[k]));
    auto* res = new SampanResult;
    std::unique_ptr<SampanResult> guard(res);
    if (mode == 0) {
      PD_CHECK(m.kernel != nullptr, "op ", op_name, " has no kernel (SetKernelFn)");
      res->outs = m.kernel(ctx);
    } else if (mode == 1) {
      PD_CHECK(m.infer_shape != nullptr, "op ", op_name, " has no SetInferShapeFn");
      for (auto& s : m.infer_shape(ctx)) {
        res->outs.push_back(paddle::Tensor::Meta(s, paddle::DataType::UNDEFINED));
      }
    } else {
      PD_CHECK(m.infer_dtype != nullptr, "op ", op_name, " has no SetInferDtypeFn");
      for (auto d : m.infer_dtype(ctx)) res->outs.push_back(paddle::Tensor::Meta({}, d));
    }
    for (auto& t : res->outs) res->shapes.push_back(t.shape());
    *result = guard.release();
    return 0;
  } catch (const std::exception& e) {
    std::strncpy(err, e.what(), errlen - 1);
    err[errlen - 1] = '\0';
    return 1;
  }
}

int32_t sampan_ext_result_size(void* r) {
  return static_cast<int32_t>(static_cast<SampanResult*>(r)->outs.size());
}

// output k: its data pointer (NULL if uninitialised), shape and dtype; valid until freed
void sampan_ext_result_get(void* r, int32_t k, SampanTensor* out) {
  auto* res = static_cast<SampanResult*>(r);
  paddle::Tensor& t = res->outs[k];
  out->data = t.initialized() ? t.data() : nullptr;
  out->shape = res->shapes[k].data();
  out->ndim = static_cast<int32_t>(res->shapes[k].size());
  out->dtype = static_cast<int32_t>(t.dtype());
}

void sampan_ext_result_free(void* r) { delete static_cast<SampanResult*>(r); }

}  // extern "C"
