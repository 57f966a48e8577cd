//! A bounded cache of decompressed blocks: least recently used blocks go first once the byte
//! budget is spent.

use std::collections::HashMap;
use std::sync::Arc;

/// Which block: slice (stones), section number, block number.
pub(crate) type BlockKey = (u32, u32, u32);

/// Decompressed blocks, at most `budget` bytes of them.
pub(crate) struct BlockCache {
    budget: u64,
    used: u64,
    clock: u64,
    blocks: HashMap<BlockKey, (Arc<[u8]>, u64)>,
}

impl BlockCache {
    /// An empty cache that holds at most `budget` bytes of blocks.
    pub(crate) fn new(budget: u64) -> BlockCache {
        BlockCache {
            budget,
            used: 0,
            clock: 0,
            blocks: HashMap::new(),
        }
    }

    /// The byte budget.
    pub(crate) fn budget(&self) -> u64 {
        self.budget
    }

    /// Bytes of blocks held now.
    pub(crate) fn used(&self) -> u64 {
        self.used
    }

    /// The block, if held (marking it just used).
    pub(crate) fn get(&mut self, key: BlockKey) -> Option<Arc<[u8]>> {
        self.clock += 1;
        let clock = self.clock;
        self.blocks.get_mut(&key).map(|(data, used)| {
            *used = clock;
            Arc::clone(data)
        })
    }

    /// Keeps a block, dropping the least recently used ones to stay within the budget. A block
    /// larger than the whole budget is not kept.
    pub(crate) fn insert(&mut self, key: BlockKey, data: Arc<[u8]>) {
        let size = data.len() as u64;
        if size > self.budget || self.blocks.contains_key(&key) {
            return;
        }
        while self.used + size > self.budget {
            // A linear scan: the cache holds few blocks (each is up to 64 · 8⁴ bytes), and a
            // miss costs a decompression that dwarfs it.
            let Some((&oldest, _)) = self.blocks.iter().min_by_key(|(_, (_, used))| *used) else {
                break;
            };
            if let Some((old, _)) = self.blocks.remove(&oldest) {
                self.used -= old.len() as u64;
            }
        }
        self.clock += 1;
        self.used += size;
        self.blocks.insert(key, (data, self.clock));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(n: usize) -> Arc<[u8]> {
        vec![0u8; n].into()
    }

    #[test]
    fn least_recently_used_goes_first() {
        let mut cache = BlockCache::new(300);
        cache.insert((0, 0, 0), block(100));
        cache.insert((0, 0, 1), block(100));
        cache.insert((0, 0, 2), block(100));
        assert!(cache.get((0, 0, 0)).is_some());
        cache.insert((0, 0, 3), block(100));
        assert!(
            cache.get((0, 0, 1)).is_none(),
            "the least recently used block is dropped"
        );
        assert!(cache.get((0, 0, 0)).is_some());
        assert!(cache.get((0, 0, 3)).is_some());
        assert_eq!(cache.used(), 300);
    }

    #[test]
    fn never_exceeds_the_budget() {
        let mut cache = BlockCache::new(250);
        for i in 0..20 {
            cache.insert((1, 2, i), block(60 + i as usize));
            assert!(cache.used() <= cache.budget());
        }
        cache.insert((9, 9, 9), block(251));
        assert!(cache.get((9, 9, 9)).is_none());
        let mut empty = BlockCache::new(0);
        empty.insert((0, 0, 0), block(1));
        assert_eq!(empty.used(), 0);
    }
}
