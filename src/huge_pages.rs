//! Large tables read at random on the hot path (the SID table, the id table) backed by 2 MiB
//! pages where the kernel offers them: with 4 KiB pages nearly every lookup also misses the
//! TLB, and filling the table takes one page fault per 4 KiB.

/// The size of a transparent huge page on x86-64 and most arm64 kernels.
const HUGE_PAGE: usize = 1 << 21;

/// An empty vector with room for `capacity` values whose whole 2 MiB pages are offered to
/// the kernel for transparent huge pages (`madvise(MADV_HUGEPAGE)`). A hint: where THP is
/// off, unsupported or the call fails, the vector is an ordinary one; values are unaffected.
pub fn vec_with_huge_pages<T>(capacity: usize) -> Vec<T> {
    let v: Vec<T> = Vec::with_capacity(capacity);
    let bytes = capacity.saturating_mul(std::mem::size_of::<T>());
    if bytes >= 2 * HUGE_PAGE {
        advise(v.as_ptr().cast(), bytes);
    }
    v
}

#[cfg(target_os = "linux")]
fn advise(start: *const u8, len: usize) {
    let first = (start as usize).next_multiple_of(HUGE_PAGE);
    let end = (start as usize + len) / HUGE_PAGE * HUGE_PAGE;
    if end > first {
        // SAFETY: the range lies inside the vector's own allocation, and MADV_HUGEPAGE only
        // changes how the kernel backs those pages, never their contents.
        unsafe { libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE) };
    }
}

#[cfg(not(target_os = "linux"))]
fn advise(_start: *const u8, _len: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_advised_vector_is_an_ordinary_vector() {
        for capacity in [0, 1, 1000, 3 << 20] {
            let mut v: Vec<u32> = vec_with_huge_pages(capacity);
            assert!(v.capacity() >= capacity);
            v.extend((0..capacity as u32).rev());
            assert!(v.iter().rev().copied().eq(0..capacity as u32));
        }
    }
}
