//! StackBlock (V4+ and V6): `u32 FirstId, u32 Count`, then Count × `{u32 size, size bytes of IPs}`,
//! leaf first. Events refer to stacks by id, valid until the next sequence point. The block is
//! always validated and counted; with a [`StackTable`] (the reader keeps stacks,
//! [`crate::TraceReader::set_keep_stacks`]) its stacks are interned and its ids defined for the
//! current region.

use crate::bytes::Cursor;
use crate::error::{Error, Result};
use crate::stacks::{read_addresses, StackTable};
use alloc::format;
use alloc::vec::Vec;

/// Returns the number of stacks in the block.
pub fn read_stack_block(
    c: &mut Cursor<'_>,
    pointer_size: u8,
    mut table: Option<&mut StackTable>,
) -> Result<u32> {
    let first_id = c.u32("first stack id")?;
    let count = c.u32("stack count")?;
    let mut scratch = Vec::new();
    for i in 0..count {
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
        let bytes = c.bytes(size, "stack")?;
        if let Some(t) = table.as_deref_mut() {
            read_addresses(bytes, pointer_size, &mut scratch);
            t.define_raw(first_id.wrapping_add(i), &scratch);
        }
    }
    Ok(count)
}
