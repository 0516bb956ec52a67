//! The GCBulk* heap-dump and survival events: a small header, then `Count` packed elements
//! (`#pragma pack(1)` structs: no padding). Elements are read lazily. Also Type/BulkType, which
//! names the type ids those events (and FinalizeObject) refer to.

use crate::clr::enums::GcRootKind;
use crate::clr::payload::{PResult, PayloadCursor, PayloadError, Utf16Str};

/// Which GCBulk event a [`GcBulk`] came from; fixes the element layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum BulkKind {
    /// id 16: ptr RootedNodeAddress, u8 GCRootKind, u32 GCRootFlag, ptr GCRootID.
    RootEdge,
    /// id 17: ptr GCKeyNodeID, ptr GCValueNodeID, ptr GCRootID.
    RootConditionalWeakTableElementEdge,
    /// id 18: ptr Address, u64 Size, u64 TypeID, u64 EdgeCount.
    Node,
    /// id 19: ptr Value, u32 ReferencingFieldID.
    Edge,
    /// id 21: ptr RangeBase, u64 RangeLength.
    SurvivingObjectRanges,
    /// id 22: ptr OldRangeBase, ptr NewRangeBase, u64 RangeLength.
    MovedObjectRanges,
    /// id 36 (no Index in the header): u64 GCRootID, ObjectID, TypeID, IUnknown, u32 RefCount,
    /// PeggedRefCount, Flags.
    RootCcw,
    /// id 37 (no Index): u64 ObjectID, TypeID, IUnknown, VTable, u32 RefCount, Flags.
    Rcw,
    /// id 38 (header: u32 Count, u64 AppDomainID, u16 ClrInstanceID): variable-size elements
    /// (u64 GCRootID, ObjectID, TypeID, u32 Flags, UTF-16 FieldName), checked when parsed.
    RootStaticVar,
}

impl BulkKind {
    /// Bytes of the event header before the elements.
    pub fn header_len(self) -> usize {
        match self {
            BulkKind::RootCcw | BulkKind::Rcw => 6,
            BulkKind::RootStaticVar => 14,
            _ => 10,
        }
    }

    /// Bytes per element for fixed-size kinds.
    pub fn stride(self, pointer_size: u8) -> Option<usize> {
        let p = usize::from(pointer_size);
        Some(match self {
            BulkKind::RootEdge => 2 * p + 5,
            BulkKind::RootConditionalWeakTableElementEdge => 3 * p,
            BulkKind::Node => p + 24,
            BulkKind::Edge => p + 4,
            BulkKind::SurvivingObjectRanges => p + 8,
            BulkKind::MovedObjectRanges => 2 * p + 8,
            BulkKind::RootCcw => 44,
            BulkKind::Rcw => 40,
            BulkKind::RootStaticVar => return None,
        })
    }
}

/// A GCBulk* event: header plus lazily decoded elements.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct GcBulk<'a> {
    pub kind: BulkKind,
    /// Sequence number of this event within its batch (absent for RootCCW, RCW, RootStaticVar).
    pub index: Option<u32>,
    /// Number of elements.
    pub count: u32,
    /// RootStaticVar only.
    pub app_domain_id: Option<u64>,
    pub clr_instance_id: u16,
    /// The bytes of the `count` elements (any tail after them is excluded).
    #[serde(skip)]
    pub values: &'a [u8],
    #[serde(skip)]
    pointer_size: u8,
}

/// One GCBulkSurvivingObjectRanges element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct SurvivingRange {
    pub range_base: u64,
    /// Bytes.
    pub range_length: u64,
}

/// One GCBulkMovedObjectRanges element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct MovedRange {
    pub old_range_base: u64,
    pub new_range_base: u64,
    /// Bytes.
    pub range_length: u64,
}

/// One GCBulkRootEdge element.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct RootEdge {
    pub rooted_node_address: u64,
    pub root_kind: GcRootKind,
    /// 0x1 pinning, 0x2 weak, 0x4 interior, 0x8 ref-counted.
    pub root_flags: u32,
    pub root_id: u64,
}

/// One GCBulkNode element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Node {
    pub address: u64,
    pub size: u64,
    pub type_id: u64,
    pub edge_count: u64,
}

/// One GCBulkEdge element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Edge {
    pub value: u64,
    pub referencing_field_id: u32,
}

/// One GCBulkRootConditionalWeakTableElementEdge element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct CwtEdge {
    pub key_node_id: u64,
    pub value_node_id: u64,
    pub root_id: u64,
}

/// One GCBulkRootCCW element (COM-callable wrapper root).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct RootCcw {
    pub root_id: u64,
    pub object_id: u64,
    pub type_id: u64,
    pub iunknown: u64,
    pub ref_count: u32,
    pub pegged_ref_count: u32,
    /// 0x1 strong, 0x2 pegged.
    pub flags: u32,
}

/// One GCBulkRCW element (runtime-callable wrapper).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Rcw {
    pub object_id: u64,
    pub type_id: u64,
    pub iunknown: u64,
    pub vtable: u64,
    pub ref_count: u32,
    pub flags: u32,
}

/// One GCBulkRootStaticVar element.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct StaticVarRoot<'a> {
    pub root_id: u64,
    pub object_id: u64,
    pub type_id: u64,
    /// 0x1 thread-local.
    pub flags: u32,
    pub field_name: Utf16Str<'a>,
}

impl<'a> GcBulk<'a> {
    pub fn parse(payload: &'a [u8], kind: BulkKind, pointer_size: u8) -> PResult<Self> {
        let mut r = PayloadCursor::new(payload, pointer_size)?;
        let (index, count, app_domain_id, clr_instance_id);
        match kind {
            BulkKind::RootCcw | BulkKind::Rcw => {
                index = None;
                count = r.u32("GCBulk.Count")?;
                app_domain_id = None;
                clr_instance_id = r.u16("GCBulk.ClrInstanceID")?;
            }
            BulkKind::RootStaticVar => {
                index = None;
                count = r.u32("GCBulk.Count")?;
                app_domain_id = Some(r.u64("GCBulk.AppDomainID")?);
                clr_instance_id = r.u16("GCBulk.ClrInstanceID")?;
            }
            _ => {
                index = Some(r.u32("GCBulk.Index")?);
                count = r.u32("GCBulk.Count")?;
                app_domain_id = None;
                clr_instance_id = r.u16("GCBulk.ClrInstanceID")?;
            }
        }
        let values = match kind.stride(pointer_size) {
            Some(stride) => {
                let len = (count as usize)
                    .checked_mul(stride)
                    .ok_or_else(|| PayloadError::truncated(r.pos(), "GCBulk.Values"))?;
                r.bytes(len, "GCBulk.Values")?
            }
            None => {
                // Variable-size elements: walk them so that a cut payload is an error here.
                let start = r.pos();
                for _ in 0..count {
                    r.u64("GCBulkRootStaticVar.GCRootID")?;
                    r.u64("GCBulkRootStaticVar.ObjectID")?;
                    r.u64("GCBulkRootStaticVar.TypeID")?;
                    r.u32("GCBulkRootStaticVar.Flags")?;
                    r.utf16z("GCBulkRootStaticVar.FieldName")?;
                }
                &payload[start..r.pos()]
            }
        };
        Ok(GcBulk {
            kind,
            index,
            count,
            app_domain_id,
            clr_instance_id,
            values,
            pointer_size,
        })
    }

    /// Element `i` as a reader, if this is a fixed-size kind and `i < count`.
    fn element(&self, i: usize) -> Option<PayloadCursor<'a>> {
        let stride = self.kind.stride(self.pointer_size)?;
        let start = i.checked_mul(stride)?;
        let bytes = self.values.get(start..start.checked_add(stride)?)?;
        PayloadCursor::new(bytes, self.pointer_size).ok()
    }

    fn elements<T: 'a>(
        &self,
        want: BulkKind,
        read: fn(&mut PayloadCursor<'a>) -> PResult<T>,
    ) -> impl Iterator<Item = T> + 'a {
        let this = self.clone();
        let n = if self.kind == want {
            self.count as usize
        } else {
            0
        };
        (0..n).map_while(move |i| this.element(i).and_then(|mut r| read(&mut r).ok()))
    }

    /// The ranges of a GCBulkSurvivingObjectRanges event (empty for other kinds).
    pub fn surviving_ranges(&self) -> impl Iterator<Item = SurvivingRange> + 'a {
        self.elements(BulkKind::SurvivingObjectRanges, |r| {
            Ok(SurvivingRange {
                range_base: r.ptr("RangeBase")?,
                range_length: r.u64("RangeLength")?,
            })
        })
    }

    /// The ranges of a GCBulkMovedObjectRanges event (empty for other kinds).
    pub fn moved_ranges(&self) -> impl Iterator<Item = MovedRange> + 'a {
        self.elements(BulkKind::MovedObjectRanges, |r| {
            Ok(MovedRange {
                old_range_base: r.ptr("OldRangeBase")?,
                new_range_base: r.ptr("NewRangeBase")?,
                range_length: r.u64("RangeLength")?,
            })
        })
    }

    /// The edges of a GCBulkRootEdge event (empty for other kinds).
    pub fn root_edges(&self) -> impl Iterator<Item = RootEdge> + 'a {
        self.elements(BulkKind::RootEdge, |r| {
            Ok(RootEdge {
                rooted_node_address: r.ptr("RootedNodeAddress")?,
                root_kind: GcRootKind::from_raw(u32::from(r.u8("GCRootKind")?)),
                root_flags: r.u32("GCRootFlag")?,
                root_id: r.ptr("GCRootID")?,
            })
        })
    }

    /// The elements of a GCBulkRootConditionalWeakTableElementEdge event (empty for other kinds).
    pub fn cwt_edges(&self) -> impl Iterator<Item = CwtEdge> + 'a {
        self.elements(BulkKind::RootConditionalWeakTableElementEdge, |r| {
            Ok(CwtEdge {
                key_node_id: r.ptr("GCKeyNodeID")?,
                value_node_id: r.ptr("GCValueNodeID")?,
                root_id: r.ptr("GCRootID")?,
            })
        })
    }

    /// The elements of a GCBulkRootCCW event (empty for other kinds).
    pub fn root_ccws(&self) -> impl Iterator<Item = RootCcw> + 'a {
        self.elements(BulkKind::RootCcw, |r| {
            Ok(RootCcw {
                root_id: r.u64("GCRootID")?,
                object_id: r.u64("ObjectID")?,
                type_id: r.u64("TypeID")?,
                iunknown: r.u64("IUnknown")?,
                ref_count: r.u32("RefCount")?,
                pegged_ref_count: r.u32("PeggedRefCount")?,
                flags: r.u32("Flags")?,
            })
        })
    }

    /// The elements of a GCBulkRCW event (empty for other kinds).
    pub fn rcws(&self) -> impl Iterator<Item = Rcw> + 'a {
        self.elements(BulkKind::Rcw, |r| {
            Ok(Rcw {
                object_id: r.u64("ObjectID")?,
                type_id: r.u64("TypeID")?,
                iunknown: r.u64("IUnknown")?,
                vtable: r.u64("VTable")?,
                ref_count: r.u32("RefCount")?,
                flags: r.u32("Flags")?,
            })
        })
    }

    /// The elements of a GCBulkRootStaticVar event (empty for other kinds). Elements are
    /// variable-size; iteration stops at the first one that does not fit.
    pub fn static_vars(&self) -> impl Iterator<Item = StaticVarRoot<'a>> + 'a {
        let n = if self.kind == BulkKind::RootStaticVar {
            self.count as usize
        } else {
            0
        };
        let mut r = PayloadCursor::new(self.values, self.pointer_size).ok();
        (0..n).map_while(move |_| {
            let r = r.as_mut()?;
            Some(StaticVarRoot {
                root_id: r.u64("GCRootID").ok()?,
                object_id: r.u64("ObjectID").ok()?,
                type_id: r.u64("TypeID").ok()?,
                flags: r.u32("Flags").ok()?,
                field_name: r.utf16z("FieldName").ok()?,
            })
        })
    }

    /// The nodes of a GCBulkNode event (empty for other kinds).
    pub fn nodes(&self) -> impl Iterator<Item = Node> + 'a {
        self.elements(BulkKind::Node, |r| {
            Ok(Node {
                address: r.ptr("Address")?,
                size: r.u64("Size")?,
                type_id: r.u64("TypeID")?,
                edge_count: r.u64("EdgeCount")?,
            })
        })
    }

    /// The edges of a GCBulkEdge event (empty for other kinds).
    pub fn edges(&self) -> impl Iterator<Item = Edge> + 'a {
        self.elements(BulkKind::Edge, |r| {
            Ok(Edge {
                value: r.ptr("Value")?,
                referencing_field_id: r.u32("ReferencingFieldID")?,
            })
        })
    }
}

/// Type/BulkType (id 15): descriptions of types, for resolving the TypeIDs of heap-dump,
/// allocation and finalization events.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct BulkType<'a> {
    pub count: u32,
    pub clr_instance_id: u16,
    #[serde(skip)]
    values: &'a [u8],
}

/// One BulkType element.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct TypeDescription<'a> {
    /// MethodTable / TypeHandle.
    pub type_id: u64,
    pub module_id: u64,
    /// Metadata token of the type.
    pub type_name_id: u32,
    /// 0x1 has finalizer, 0x2 externally implemented COM object, 0x4 array, 0x8 array rank in
    /// the high byte... (TraceEvent's TypeFlags).
    pub flags: u32,
    pub cor_element_type: u8,
    pub name: Utf16Str<'a>,
    /// Type ids of the generic arguments (u64 each).
    #[serde(skip)]
    pub type_parameters: &'a [u8],
}

impl TypeDescription<'_> {
    /// The generic arguments' type ids.
    pub fn type_parameter_ids(&self) -> impl Iterator<Item = u64> + '_ {
        self.type_parameters.chunks_exact(8).map(|c| {
            let mut b = [0u8; 8];
            b.copy_from_slice(c);
            u64::from_le_bytes(b)
        })
    }
}

fn read_type<'a>(r: &mut PayloadCursor<'a>) -> PResult<TypeDescription<'a>> {
    let type_id = r.u64("BulkType.TypeID")?;
    let module_id = r.u64("BulkType.ModuleID")?;
    let type_name_id = r.u32("BulkType.TypeNameID")?;
    let flags = r.u32("BulkType.Flags")?;
    let cor_element_type = r.u8("BulkType.CorElementType")?;
    let name = r.utf16z("BulkType.TypeName")?;
    let n = r.u32("BulkType.TypeParameterCount")?;
    let len = (n as usize)
        .checked_mul(8)
        .ok_or_else(|| PayloadError::truncated(r.pos(), "BulkType.TypeParameters"))?;
    let type_parameters = r.bytes(len, "BulkType.TypeParameters")?;
    Ok(TypeDescription {
        type_id,
        module_id,
        type_name_id,
        flags,
        cor_element_type,
        name,
        type_parameters,
    })
}

impl<'a> BulkType<'a> {
    /// u32 Count, u16 ClrInstanceID, then Count variable-size elements: u64 TypeID, u64 ModuleID,
    /// u32 TypeNameID, u32 Flags, u8 CorElementType, UTF-16 TypeName, u32 TypeParameterCount,
    /// TypeParameterCount × u64. Elements are checked when parsed.
    pub fn parse(payload: &'a [u8], _version: u32, pointer_size: u8) -> PResult<Self> {
        let mut r = PayloadCursor::new(payload, pointer_size)?;
        let count = r.u32("BulkType.Count")?;
        let clr_instance_id = r.u16("BulkType.ClrInstanceID")?;
        let start = r.pos();
        for _ in 0..count {
            read_type(&mut r)?;
        }
        Ok(BulkType {
            count,
            clr_instance_id,
            values: &payload[start..r.pos()],
        })
    }

    pub fn types(&self) -> impl Iterator<Item = TypeDescription<'a>> + 'a {
        let mut r = PayloadCursor::new(self.values, 8).ok();
        (0..self.count).map_while(move |_| read_type(r.as_mut()?).ok())
    }

    /// Bytes of the elements.
    pub fn values_len(&self) -> usize {
        self.values.len()
    }
}

#[cfg(test)]
mod tests;
