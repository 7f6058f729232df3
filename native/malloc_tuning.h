// The allocator's settings for a process that runs optimizer cycles.
#pragma once

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace opt {

/** Keep freed memory for the next cycle. A cycle allocates tens of MB of arrays sized by the
 *  mempool and frees them at its end; with glibc's defaults the larger ones are fresh mmaps (or the
 *  heap top is trimmed), so every cycle paid a page fault per 4 KiB touched again (~23 % of a
 *  150k-tx cycle under perf). Every array now comes from the heap: the threshold is raised to
 *  glibc's ceiling (32 MiB) and mmap is switched off for the larger ones, which only a mempool of
 *  several hundred thousand transactions has (a 1M cycle faulted 18k-80k pages, 58-212 ms of system
 *  time, each cycle). Up to 512 MiB of free heap is kept instead of being returned to the system.
 *  A thread other than the main one (the cycle's helper; a worker thread calling the addon)
 *  allocates from its own arena, whose heaps are 64 MiB; one emptied by the cycle's frees was
 *  unmapped whatever the trim threshold (glibc's heap_trim keeps a heap only when the top pad
 *  could not be met without it), so a 1M cycle faulted ~5-7k pages again on the helper (the v30
 *  baseline's arrays): a 64 MiB top pad keeps those heaps. The pad is address space; pages are
 *  only counted once touched. Process-wide; other allocators (musl, macOS) keep their own policy. */
inline void KeepFreedMemoryForNextCycle() noexcept
{
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TOP_PAD, 64 << 20);
#endif
}

}  // namespace opt
