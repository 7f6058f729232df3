// The one error boundary between C++ and JavaScript: InputError becomes a JavaScript Error with
// code ERR_OPTIMIZER_<NAME>; std::bad_alloc ERR_OPTIMIZER_OUT_OF_MEMORY; anything else
// ERR_OPTIMIZER_INTERNAL. Every entry point runs its body in Guard, so no C++ exception crosses
// into JavaScript (the addon is built with NAPI_DISABLE_CPP_EXCEPTIONS: N-API calls do not throw).
#pragma once

#include <napi.h>

#include <exception>
#include <new>
#include <string>

#include "common.h"

namespace marshal {

/** Set a pending JavaScript Error with code ERR_OPTIMIZER_<code>, unless one is pending already. */
inline Napi::Value Throw(Napi::Env env, const std::string& code, const std::string& message)
{
    if (env.IsExceptionPending()) return env.Undefined();  // e.g. a throwing getter on the input
    Napi::Error err = Napi::Error::New(env, message);
    err.Set("code", Napi::String::New(env, "ERR_OPTIMIZER_" + code));
    err.ThrowAsJavaScriptException();
    return env.Undefined();
}

/** Run f, turning any C++ exception into a pending JavaScript exception. */
template <typename F>
Napi::Value Guard(Napi::Env env, F&& f)
{
    try {
        return f();
    } catch (const opt::InputError& e) {
        return Throw(env, opt::ErrorCodeName(e.Code()), e.what());
    } catch (const std::bad_alloc&) {
        return Throw(env, "OUT_OF_MEMORY", "the optimizer ran out of memory");
    } catch (const std::exception& e) {
        return Throw(env, "INTERNAL", std::string("internal optimizer error: ") + e.what());
    } catch (...) {
        return Throw(env, "INTERNAL", "internal optimizer error");
    }
}

}  // namespace marshal
