//! StackBlock (V4+ and V6): `u32 FirstId, u32 Count`, then Count × `{u32 size, size bytes of IPs}`.
//! Events refer to stacks by id; gcscope's consumers do not use stacks yet, so the block is validated
//! and counted, not kept (keeping it would be the place for a stack cache).

use crate::bytes::Cursor;
use crate::error::{Error, Result};
use alloc::format;

/// Returns the number of stacks in the block.
pub fn read_stack_block(c: &mut Cursor<'_>, pointer_size: u8) -> Result<u32> {
    let _first_id = c.u32("first stack id")?;
    let count = c.u32("stack count")?;
    for _ in 0..count {
        let at = c.offset();
        let size = c.u32("stack size")? as usize;
        if pointer_size != 0 && !size.is_multiple_of(pointer_size as usize) {
            return Err(Error::malformed(
                at,
                format!(
                    "stack of {size} bytes is not a whole number of {pointer_size}-byte addresses"
                ),
            ));
        }
        c.skip(size, "stack")?;
    }
    Ok(count)
}
