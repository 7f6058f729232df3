// Bindings only: placeholder until the optimizer lands (issue 3).
#include <napi.h>
static Napi::Value Version(const Napi::CallbackInfo& info) { return Napi::String::New(info.Env(), "0.0.0"); }
static Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("version", Napi::Function::New(env, Version, "version"));
  return exports;
}
NODE_API_MODULE(optimizer, Init)
