// An allocator whose resize() leaves new elements default-initialized (trivial types: not
// written), for tables sized to the mempool that are written in full before they are read.
#pragma once

#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace opt {

/** std::allocator, except that value-initialization (resize(n), vector(n)) becomes
 *  default-initialization: no zeroing pass over memory that is about to be written anyway. */
template <typename T, typename A = std::allocator<T>>
class DefaultInitAllocator : public A
{
    using Traits = std::allocator_traits<A>;

public:
    template <typename U>
    struct rebind {
        using other = DefaultInitAllocator<U, typename Traits::template rebind_alloc<U>>;
    };
    using A::A;

    template <typename U>
    void construct(U* ptr) noexcept(std::is_nothrow_default_constructible_v<U>)
    {
        ::new (static_cast<void*>(ptr)) U;
    }
    template <typename U, typename... Args>
    void construct(U* ptr, Args&&... args)
    {
        Traits::construct(static_cast<A&>(*this), ptr, std::forward<Args>(args)...);
    }
};

}  // namespace opt
