//! The global allocator: glibc's for small blocks, and for large ones mappings of their own,
//! aligned to transparent huge pages and advised into them.
//!
//! A one-shot command touches every page of its large arrays once (the index's ids and keys,
//! the SID table, the beams blocks, ZCR's rows), and with 4 KiB pages each first touch is a
//! page fault: 28,600 of them in `eval` at 1M items, and a fifth of its CPU time spent in the
//! kernel. Where the kernel leaves huge pages to the program's advice (the usual `madvise`
//! setting of `/sys/kernel/mm/transparent_hugepage/enabled`), a fault in an advised, aligned
//! region maps 2 MiB at once. glibc does this for its whole heap under
//! `GLIBC_TUNABLES=glibc.malloc.hugetlb=1`, which a program cannot set for itself once it
//! runs; this allocator does it for the blocks that matter (README → Speed has the
//! measurements). Where huge pages are off (`never`) the mappings are plain ones, and on other
//! systems every block is glibc's.
//!
//! Why not only advise glibc's blocks: a block inside glibc's heap, or mapped by glibc at a
//! start that is not a multiple of 2 MiB, holds whole huge pages only in its middle, so most
//! of its faults stay 4 KiB ones: that `eval` faulted 24,100 times when advised that way,
//! 9,600–13,300 times under glibc's tunable, and 4,900 times with these mappings.

use std::alloc::{GlobalAlloc, Layout, System};

/// The size of a transparent huge page on x86-64 (and most aarch64 kernels).
const HUGE_PAGE: usize = 2 << 20;

/// Blocks from this size on are mapped on their own: a smaller one would round up to a
/// whole huge page too wastefully, and small blocks are too many for a system call each.
/// (From twice this size on, `eval` faulted 12,600 times rather than 4,900.)
const MAPPED_FROM: usize = HUGE_PAGE;

/// glibc's `malloc` for blocks below [`MAPPED_FROM`] bytes; larger blocks are private
/// anonymous mappings, aligned to and rounded up to whole huge pages and advised into them.
/// The binary installs it as the global allocator.
pub struct HugePageAllocator;

// SAFETY: small blocks come from `System` and go back to it; a large block is a private
// anonymous mapping of `mapped_len(layout)` bytes at a multiple of `HUGE_PAGE` (which
// satisfies any alignment `mapped_len` accepts), unmapped exactly once, by `dealloc` or when
// `realloc` moves it.
unsafe impl GlobalAlloc for HugePageAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        match mapped_len(layout) {
            Some(len) => map_huge(len),
            // SAFETY: the caller's contract, passed on.
            None => unsafe { System.alloc(layout) },
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        match mapped_len(layout) {
            // A fresh anonymous mapping reads as zeros.
            Some(len) => map_huge(len),
            // SAFETY: the caller's contract, passed on.
            None => unsafe { System.alloc_zeroed(layout) },
        }
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        match mapped_len(layout) {
            Some(len) => unmap(block as usize, len),
            // SAFETY: the caller's contract, passed on.
            None => unsafe { System.dealloc(block, layout) },
        }
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `realloc`'s contract: `new_size` rounded up to the alignment fits.
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        match (mapped_len(layout), mapped_len(new_layout)) {
            // SAFETY: the caller's contract, passed on.
            (None, None) => unsafe { System.realloc(block, layout, new_size) },
            (Some(old_len), Some(new_len)) => remap(block, old_len, new_len),
            _ => {
                // SAFETY: `new_layout` is valid (above); the old block is valid for
                // `layout.size()` bytes, the new one for `new_size`, and they are distinct.
                unsafe {
                    let moved = self.alloc(new_layout);
                    if !moved.is_null() {
                        std::ptr::copy_nonoverlapping(block, moved, layout.size().min(new_size));
                        self.dealloc(block, layout);
                    }
                    moved
                }
            }
        }
    }
}

/// The length of the mapping that holds a block of `layout`, or `None` for a block that
/// glibc holds (smaller than [`MAPPED_FROM`], aligned beyond a huge page, or not on Linux).
fn mapped_len(layout: Layout) -> Option<usize> {
    if !cfg!(target_os = "linux") || layout.size() < MAPPED_FROM || layout.align() > HUGE_PAGE {
        return None;
    }
    layout.size().checked_next_multiple_of(HUGE_PAGE)
}

/// A fresh mapping of `len` bytes (a multiple of [`HUGE_PAGE`]) starting at a multiple of
/// it, advised into huge pages; null when the system refuses.
#[cfg(target_os = "linux")]
fn map_huge(len: usize) -> *mut u8 {
    // One huge page more than needed, so that an aligned span of `len` lies inside; the ends
    // outside it are unmapped again.
    let Some(reserved) = len.checked_add(HUGE_PAGE) else {
        return std::ptr::null_mut();
    };
    // SAFETY: a new private anonymous mapping, at an address the kernel chooses.
    let start = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            reserved,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if start == libc::MAP_FAILED {
        return std::ptr::null_mut();
    }
    let start = start as usize;
    let first = start.next_multiple_of(HUGE_PAGE);
    unmap(start, first - start);
    unmap(first + len, start + reserved - (first + len));
    // SAFETY: [first, first + len) is mapped and this process's own; the advice changes how
    // its pages are backed, never their contents, and a refusal (huge pages compiled out)
    // leaves it as it was.
    unsafe {
        libc::madvise(first as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
    }
    first as *mut u8
}

#[cfg(not(target_os = "linux"))]
fn map_huge(_: usize) -> *mut u8 {
    unreachable!("only Linux maps blocks of their own (see mapped_len)")
}

/// A mapped block of `old_len` bytes resized to `new_len`, its contents kept up to the
/// shorter length: shrunk or grown in place where the addresses after it are free, else its
/// pages moved (not copied) onto a fresh aligned mapping. Null, with the block unchanged,
/// when the system refuses.
#[cfg(target_os = "linux")]
fn remap(block: *mut u8, old_len: usize, new_len: usize) -> *mut u8 {
    if new_len <= old_len {
        unmap(block as usize + new_len, old_len - new_len);
        return block;
    }
    // SAFETY: `block` is a mapping of `old_len` bytes of this process; without
    // MREMAP_MAYMOVE it either grows where it is or fails and stays as it was.
    let grown = unsafe { libc::mremap(block.cast(), old_len, new_len, 0) };
    if grown != libc::MAP_FAILED {
        return block;
    }
    let target = map_huge(new_len);
    if target.is_null() {
        return target;
    }
    // SAFETY: both are this process's mappings; MREMAP_FIXED moves the old pages over the
    // fresh mapping (replacing it) and unmaps the old range, or fails and changes nothing.
    let moved = unsafe {
        libc::mremap(
            block.cast(),
            old_len,
            new_len,
            libc::MREMAP_MAYMOVE | libc::MREMAP_FIXED,
            target.cast::<libc::c_void>(),
        )
    };
    if moved == libc::MAP_FAILED {
        // SAFETY: distinct mappings, each valid for at least `old_len` bytes.
        unsafe { std::ptr::copy_nonoverlapping(block, target, old_len) };
        unmap(block as usize, old_len);
    }
    target
}

#[cfg(not(target_os = "linux"))]
fn remap(_: *mut u8, _: usize, _: usize) -> *mut u8 {
    unreachable!("only Linux maps blocks of their own (see mapped_len)")
}

/// Unmaps `len` bytes (whole pages) from `start`; nothing when `len` is 0.
fn unmap(start: usize, len: usize) {
    #[cfg(target_os = "linux")]
    if len > 0 {
        // SAFETY: callers pass whole pages of a mapping of this process that nothing refers
        // to any more.
        unsafe {
            libc::munmap(start as *mut libc::c_void, len);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (start, len);
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn large_blocks_round_up_to_whole_huge_pages_and_the_rest_stay_glibcs() {
        let len = |size, align| mapped_len(Layout::from_size_align(size, align).unwrap());
        assert_eq!(len(MAPPED_FROM - 1, 8), None);
        assert_eq!(len(MAPPED_FROM, 8), Some(MAPPED_FROM));
        assert_eq!(len(MAPPED_FROM + 1, 64), Some(MAPPED_FROM + HUGE_PAGE));
        assert_eq!(len(MAPPED_FROM, 2 * HUGE_PAGE), None);
    }

    /// The kernel's huge-page mode, e.g. `madvise` in `always [madvise] never`.
    fn thp_mode() -> Option<String> {
        let text = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").ok()?;
        let start = text.find('[')? + 1;
        let end = text[start..].find(']')? + start;
        Some(text[start..end].to_string())
    }

    /// The `THPeligible` value of the `/proc/self/smaps` mapping that holds `address`.
    fn thp_eligible(address: usize) -> Option<bool> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let mut inside = false;
        for line in smaps.lines() {
            let range = line.split_once(' ').and_then(|(r, _)| r.split_once('-'));
            if let Some((lo, hi)) = range
                && let (Ok(lo), Ok(hi)) =
                    (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
            {
                inside = (lo..hi).contains(&address);
            } else if inside && let Some(value) = line.strip_prefix("THPeligible:") {
                return Some(value.trim() == "1");
            }
        }
        None
    }

    #[test]
    fn a_large_block_is_aligned_zeroed_and_eligible_for_huge_pages() {
        let layout = Layout::from_size_align(5 << 20, 8).unwrap();
        // SAFETY: a non-zero layout; the block is freed below with it.
        let block = unsafe { HugePageAllocator.alloc_zeroed(layout) };
        assert!(!block.is_null());
        assert_eq!(block as usize % HUGE_PAGE, 0);
        // SAFETY: the block holds `layout.size()` bytes.
        let bytes = unsafe { std::slice::from_raw_parts_mut(block, layout.size()) };
        assert!(bytes.iter().all(|&b| b == 0));
        bytes.fill(7);
        let eligible = thp_eligible(block as usize);
        // SAFETY: allocated above with this layout.
        unsafe { HugePageAllocator.dealloc(block, layout) };
        match thp_mode().as_deref() {
            Some("madvise" | "always") => assert_eq!(eligible, Some(true)),
            mode => eprintln!("transparent huge pages are {mode:?} here: eligibility not checked"),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// A block resized through sizes on both sides of the threshold keeps its contents
        /// up to the shorter size, as `realloc` must.
        #[test]
        fn resizing_keeps_the_contents(
            sizes in proptest::collection::vec(
                prop_oneof![1usize..64 << 10, MAPPED_FROM - 8..MAPPED_FROM + 8, MAPPED_FROM..20 << 20],
                1..6,
            ),
            align in prop_oneof![Just(1usize), Just(8), Just(4096)],
        ) {
            let pattern = |i: usize| (i * 31 + i / 4099) as u8;
            let mut layout = Layout::from_size_align(sizes[0], align).unwrap();
            // SAFETY: a non-zero layout; the block is resized and freed below with the
            // layouts it had at each step.
            let mut block = unsafe { HugePageAllocator.alloc(layout) };
            prop_assert!(!block.is_null());
            // SAFETY: the block holds `layout.size()` bytes.
            unsafe { std::slice::from_raw_parts_mut(block, layout.size()) }
                .iter_mut()
                .enumerate()
                .for_each(|(i, b)| *b = pattern(i));
            for &size in &sizes[1..] {
                // SAFETY: `block` has `layout`; `size` is non-zero.
                block = unsafe { HugePageAllocator.realloc(block, layout, size) };
                prop_assert!(!block.is_null());
                prop_assert_eq!(block as usize % align, 0);
                let kept = layout.size().min(size);
                layout = Layout::from_size_align(size, align).unwrap();
                // SAFETY: the block now holds `size` bytes.
                let bytes = unsafe { std::slice::from_raw_parts_mut(block, size) };
                prop_assert!(bytes[..kept].iter().enumerate().all(|(i, &b)| b == pattern(i)));
                bytes.iter_mut().enumerate().for_each(|(i, b)| *b = pattern(i));
            }
            // SAFETY: the block has `layout`.
            unsafe { HugePageAllocator.dealloc(block, layout) };
        }
    }
}
