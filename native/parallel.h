// Two independent pieces of work at once: the second on a short-lived thread beside this one.
// Used for a serial step before the helper thread starts (the renumbering by cluster).
#pragma once

#include <exception>
#include <system_error>
#include <thread>

namespace opt {

/** Run a() here and b() on another thread when `parallel` (else one after the other), and
 *  throw what the sequential order would have thrown first: a's error before b's, or b's first
 *  when b_errors_first (the sequential order is then b, a). Complexity: a + b, wall max(a, b)
 *  plus a thread start (~0.1 ms). */
template <typename A, typename B>
void RunBoth(bool parallel, A&& a, B&& b, bool b_errors_first = false)
{
    auto sequential = [&] {
        if (b_errors_first) {
            b();
            a();
        } else {
            a();
            b();
        }
    };
    if (!parallel) return sequential();
    std::exception_ptr ea, eb;
    std::thread thread;
    try {
        thread = std::thread([&] {
            try {
                b();
            } catch (...) {
                eb = std::current_exception();
            }
        });
    } catch (const std::system_error&) {
        return sequential();  // no thread to be had: the same work, one after the other
    }
    try {
        a();
    } catch (...) {
        ea = std::current_exception();
    }
    thread.join();
    if (b_errors_first && eb) std::rethrow_exception(eb);
    if (ea) std::rethrow_exception(ea);
    if (eb) std::rethrow_exception(eb);
}

}  // namespace opt
