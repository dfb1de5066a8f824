//! A cache hint shared by the lookups on the evaluation's hot path (the SID table, the id
//! table): starting a load early lets the misses of many lookups overlap.

/// Asks the CPU to start loading `value`'s cache line (a hint; no effect on results).
#[inline]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: SSE is part of the x86_64 baseline, and a prefetch never faults, whatever
        // the address; `value` is a live reference anyway.
        unsafe { _mm_prefetch::<_MM_HINT_T0>((value as *const T).cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
