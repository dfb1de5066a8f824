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
//! runs; this allocator does it for the blocks that matter, and keeps a few freed mappings
//! for reuse as glibc keeps its freed heap (README → Speed has the measurements). Where huge pages are off (`never`) the mappings are plain ones, and on other
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
// satisfies any alignment `mapped_len` accepts), held by one owner at a time: the program,
// or once freed the spares (until handed out again) — or unmapped.
unsafe impl GlobalAlloc for HugePageAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        match mapped_len(layout) {
            Some(len) => SPARE.allocate(len, None),
            // SAFETY: the caller's contract, passed on.
            None => unsafe { System.alloc(layout) },
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        match mapped_len(layout) {
            Some(len) => SPARE.allocate(len, Some(layout.size())),
            // SAFETY: the caller's contract, passed on.
            None => unsafe { System.alloc_zeroed(layout) },
        }
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        match mapped_len(layout) {
            Some(len) => SPARE.keep(block, len),
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

/// Mappings freed and kept for the next large blocks, as glibc keeps freed heap memory:
/// a fresh mapping's pages are zeroed by the kernel at their first touch, and a program that
/// frees and allocates blocks of the same sizes over and over (a Parquet reader's pages, one
/// per row group) would pay that each time. (Parquet `eval` at 1M items zeroed 252 MB of
/// huge pages without the spares, against 118 MB for the same `eval` of JSON Lines.)
static SPARE: Spares = Spares(std::sync::Mutex::new([(0, 0); SPARE_SLOTS]));

/// At most this many bytes are kept in [`SPARE`], beyond what the program holds.
const SPARE_BYTES: usize = 64 << 20;

/// At most this many mappings are kept.
const SPARE_SLOTS: usize = 8;

/// Freed mappings, (start, length) each; a length of 0 marks a free slot. A fixed array, so
/// the allocator never allocates for itself.
struct Spares(std::sync::Mutex<[(usize, usize); SPARE_SLOTS]>);

impl Spares {
    /// A mapped block of `len` bytes: a kept mapping when one is large enough, else a fresh
    /// one (null when the system refuses). With `zeroed: Some(size)` its first `size` bytes
    /// read as zeros (a fresh mapping's do already).
    fn allocate(&self, len: usize, zeroed: Option<usize>) -> *mut u8 {
        let Some(block) = self.take(len) else {
            return map_huge(len);
        };
        if let Some(size) = zeroed {
            // SAFETY: a mapping of `len` ≥ `size` bytes of this process, handed to no one.
            unsafe { block.write_bytes(0, size) };
        }
        block
    }

    /// A kept mapping cut to `len` bytes: the smallest of at least `len`, its tail unmapped.
    fn take(&self, len: usize) -> Option<*mut u8> {
        let mut spares = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let slot = spares
            .iter_mut()
            .filter(|(_, spare_len)| *spare_len >= len)
            .min_by_key(|(_, spare_len)| *spare_len)?;
        let (start, spare_len) = std::mem::take(slot);
        drop(spares);
        unmap(start + len, spare_len - len);
        Some(start as *mut u8)
    }

    /// Keeps a freed mapping of `len` bytes when there is room, else unmaps it.
    fn keep(&self, block: *mut u8, len: usize) {
        let mut spares = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let kept: usize = spares.iter().map(|&(_, spare_len)| spare_len).sum();
        let free_slot = spares.iter_mut().find(|(_, spare_len)| *spare_len == 0);
        match free_slot {
            Some(slot) if kept + len <= SPARE_BYTES => *slot = (block as usize, len),
            _ => {
                drop(spares);
                unmap(block as usize, len);
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

    fn spares() -> Spares {
        Spares(std::sync::Mutex::new([(0, 0); SPARE_SLOTS]))
    }

    #[test]
    fn a_kept_mapping_is_handed_out_again_cut_to_size_and_zeroed_when_asked() {
        let spares = spares();
        let block = map_huge(3 * HUGE_PAGE);
        // SAFETY: a fresh mapping of three huge pages.
        unsafe { block.write_bytes(0xAB, 3 * HUGE_PAGE) };
        spares.keep(block, 3 * HUGE_PAGE);
        let again = spares.allocate(2 * HUGE_PAGE, Some(HUGE_PAGE + 5));
        assert_eq!(again, block);
        // SAFETY: the block holds two huge pages.
        let bytes = unsafe { std::slice::from_raw_parts(again, 2 * HUGE_PAGE) };
        assert!(bytes[..HUGE_PAGE + 5].iter().all(|&b| b == 0));
        assert!(bytes[HUGE_PAGE + 5..].iter().all(|&b| b == 0xAB));
        let fresh = spares.allocate(HUGE_PAGE, None);
        assert!(
            !fresh.is_null() && fresh != again,
            "the only spare is taken"
        );
        unmap(again as usize, 2 * HUGE_PAGE);
        unmap(fresh as usize, HUGE_PAGE);
    }

    #[test]
    fn spares_stay_within_their_slots_and_bytes() {
        let spares = spares();
        for _ in 0..=SPARE_SLOTS {
            spares.keep(map_huge(HUGE_PAGE), HUGE_PAGE);
        }
        let mut taken: Vec<*mut u8> = std::iter::from_fn(|| spares.take(HUGE_PAGE)).collect();
        assert_eq!(taken.len(), SPARE_SLOTS);
        spares.keep(map_huge(SPARE_BYTES), SPARE_BYTES);
        spares.keep(map_huge(HUGE_PAGE), HUGE_PAGE);
        let large = spares.take(2 * HUGE_PAGE).expect("the large one is kept");
        assert_eq!(large as usize % HUGE_PAGE, 0);
        assert_eq!(
            spares.take(HUGE_PAGE),
            None,
            "the small one went over the bytes kept"
        );
        unmap(large as usize, 2 * HUGE_PAGE);
        for block in taken.drain(..) {
            unmap(block as usize, HUGE_PAGE);
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
