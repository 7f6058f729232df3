// The golden-section search the bound's multipliers share (bound_closure.h's dual along one price,
// bound_lagrange.h's LP along the sigop price): both minimize a convex function of one multiplier,
// and only the tightness of the bound depends on how well (any multiplier gives a valid bound).
#pragma once

#include <cmath>
#include <utility>

namespace opt {

/** Golden-section search for a minimum of a convex function over [lo, hi]: eval(x) gives its value
 *  at x (callers may track the best point themselves), key(value) what is compared. Stops after
 *  iterations steps or when the interval is no wider than tolerance. Returns the values at the two
 *  interior points last held. Complexity: iterations + 2 evaluations. */
template <typename Eval, typename Key>
auto GoldenSection(double lo, double hi, int iterations, double tolerance, Eval&& eval, Key&& key)
{
    const double phi = (std::sqrt(5.0) - 1) / 2;
    double a = hi - phi * (hi - lo), b = lo + phi * (hi - lo);
    auto fa = eval(a);
    auto fb = eval(b);
    for (int it = 0; it < iterations && hi - lo > tolerance; ++it) {
        if (key(fa) <= key(fb)) {
            hi = b;
            b = a;
            fb = fa;
            a = hi - phi * (hi - lo);
            fa = eval(a);
        } else {
            lo = a;
            a = b;
            fa = fb;
            b = lo + phi * (hi - lo);
            fb = eval(b);
        }
    }
    return std::pair{fa, fb};
}

}  // namespace opt
