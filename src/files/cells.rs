//! Rows to cells and back, so that every CSV file writes and reads an undefined number the
//! same way: as an empty cell, never as the text `NaN`.
//!
//! [`to_cells`] turns a row (a struct of plain fields, as the record types are) into its
//! column names and [`Cell`]s; a NaN or infinite `f64` becomes [`Cell::Empty`]. [`from_record`]
//! does the reverse for reading a file back: an empty cell read into an `f64` field is NaN,
//! into an `Option` field `None`, and a text field keeps its text (even an empty one), so
//! nothing depends on which columns happen to be numbers.

use std::fmt;

use serde::de::{self, DeserializeOwned, IntoDeserializer, MapAccess, Visitor};
use serde::ser::{self, Impossible, Serialize};

use super::Cell;

/// Why a row could not be turned into cells or read from one: a bug in a record type (a
/// nested table) or a cell of the wrong kind in a file.
#[derive(Debug, Clone, PartialEq)]
pub struct CellError(pub String);

impl fmt::Display for CellError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CellError {}

impl ser::Error for CellError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        CellError(msg.to_string())
    }
}

impl de::Error for CellError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        CellError(msg.to_string())
    }
}

/// A row's column names (empty for a tuple or a sequence) and cells.
pub fn to_cells<T: Serialize + ?Sized>(
    row: &T,
) -> Result<(Vec<&'static str>, Vec<Cell>), CellError> {
    let mut out = RowSerializer::default();
    row.serialize(&mut out)?;
    Ok((out.names, out.cells))
}

/// A number as a cell: an undefined one (NaN, infinite) is empty.
pub fn number(x: f64) -> Cell {
    if x.is_finite() {
        Cell::Number(x)
    } else {
        Cell::Empty
    }
}

#[derive(Default)]
struct RowSerializer {
    names: Vec<&'static str>,
    cells: Vec<Cell>,
}

fn unsupported<T>(what: &str) -> Result<T, CellError> {
    Err(CellError(format!(
        "a CSV row is a struct or a tuple of plain values, not {what}"
    )))
}

impl RowSerializer {
    fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), CellError> {
        self.cells.push(value.serialize(CellSerializer)?);
        Ok(())
    }
}

impl<'a> ser::Serializer for &'a mut RowSerializer {
    type Ok = ();
    type Error = CellError;
    type SerializeSeq = &'a mut RowSerializer;
    type SerializeTuple = &'a mut RowSerializer;
    type SerializeTupleStruct = &'a mut RowSerializer;
    type SerializeTupleVariant = Impossible<(), CellError>;
    type SerializeMap = Impossible<(), CellError>;
    type SerializeStruct = &'a mut RowSerializer;
    type SerializeStructVariant = Impossible<(), CellError>;

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, CellError> {
        Ok(self)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self, CellError> {
        Ok(self)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self, CellError> {
        Ok(self)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self, CellError> {
        Ok(self)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), CellError> {
        value.serialize(self)
    }
    fn serialize_bool(self, _: bool) -> Result<(), CellError> {
        unsupported("a single value")
    }
    fn serialize_i8(self, _: i8) -> Result<(), CellError> {
        unsupported("a single value")
    }
    fn serialize_i16(self, _: i16) -> Result<(), CellError> {
        unsupported("a single value")
    }
    fn serialize_i32(self, _: i32) -> Result<(), CellError> {
        unsupported("a single value")
    }
    fn serialize_i64(self, _: i64) -> Result<(), CellError> {
        unsupported("a single value")
    }
    fn serialize_u8(self, _: u8) -> Result<(), CellError> {
        unsupported("a single value")
    }
    fn serialize_u16(self, _: u16) -> Result<(), CellError> {
        unsupported("a single value")
    }
    fn serialize_u32(self, _: u32) -> Result<(), CellError> {
        unsupported("a single value")
    }
    fn serialize_u64(self, _: u64) -> Result<(), CellError> {
        unsupported("a single value")
    }
    fn serialize_f32(self, _: f32) -> Result<(), CellError> {
        unsupported("a single value")
    }
    fn serialize_f64(self, _: f64) -> Result<(), CellError> {
        unsupported("a single value")
    }
    fn serialize_char(self, _: char) -> Result<(), CellError> {
        unsupported("a single value")
    }
    fn serialize_str(self, _: &str) -> Result<(), CellError> {
        unsupported("a single value")
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<(), CellError> {
        unsupported("bytes")
    }
    fn serialize_none(self) -> Result<(), CellError> {
        unsupported("a single value")
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<(), CellError> {
        unsupported("a single value")
    }
    fn serialize_unit(self) -> Result<(), CellError> {
        unsupported("a single value")
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), CellError> {
        unsupported("a single value")
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
    ) -> Result<(), CellError> {
        unsupported("a single value")
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), CellError> {
        unsupported("an enum")
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, CellError> {
        unsupported("an enum")
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, CellError> {
        unsupported("a map")
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, CellError> {
        unsupported("an enum")
    }
}

impl ser::SerializeStruct for &mut RowSerializer {
    type Ok = ();
    type Error = CellError;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), CellError> {
        self.names.push(key);
        self.push(value)
    }
    fn end(self) -> Result<(), CellError> {
        Ok(())
    }
}

impl ser::SerializeSeq for &mut RowSerializer {
    type Ok = ();
    type Error = CellError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), CellError> {
        self.push(value)
    }
    fn end(self) -> Result<(), CellError> {
        Ok(())
    }
}

impl ser::SerializeTuple for &mut RowSerializer {
    type Ok = ();
    type Error = CellError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), CellError> {
        self.push(value)
    }
    fn end(self) -> Result<(), CellError> {
        Ok(())
    }
}

impl ser::SerializeTupleStruct for &mut RowSerializer {
    type Ok = ();
    type Error = CellError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), CellError> {
        self.push(value)
    }
    fn end(self) -> Result<(), CellError> {
        Ok(())
    }
}

/// One field's value as a cell.
struct CellSerializer;

impl ser::Serializer for CellSerializer {
    type Ok = Cell;
    type Error = CellError;
    type SerializeSeq = Impossible<Cell, CellError>;
    type SerializeTuple = Impossible<Cell, CellError>;
    type SerializeTupleStruct = Impossible<Cell, CellError>;
    type SerializeTupleVariant = Impossible<Cell, CellError>;
    type SerializeMap = Impossible<Cell, CellError>;
    type SerializeStruct = Impossible<Cell, CellError>;
    type SerializeStructVariant = Impossible<Cell, CellError>;

    fn serialize_bool(self, v: bool) -> Result<Cell, CellError> {
        Ok(Cell::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> Result<Cell, CellError> {
        Ok(Cell::Integer(i64::from(v)))
    }
    fn serialize_i16(self, v: i16) -> Result<Cell, CellError> {
        Ok(Cell::Integer(i64::from(v)))
    }
    fn serialize_i32(self, v: i32) -> Result<Cell, CellError> {
        Ok(Cell::Integer(i64::from(v)))
    }
    fn serialize_i64(self, v: i64) -> Result<Cell, CellError> {
        Ok(Cell::Integer(v))
    }
    fn serialize_u8(self, v: u8) -> Result<Cell, CellError> {
        Ok(Cell::Count(u64::from(v)))
    }
    fn serialize_u16(self, v: u16) -> Result<Cell, CellError> {
        Ok(Cell::Count(u64::from(v)))
    }
    fn serialize_u32(self, v: u32) -> Result<Cell, CellError> {
        Ok(Cell::Count(u64::from(v)))
    }
    fn serialize_u64(self, v: u64) -> Result<Cell, CellError> {
        Ok(Cell::Count(v))
    }
    fn serialize_f32(self, v: f32) -> Result<Cell, CellError> {
        Ok(number(f64::from(v)))
    }
    fn serialize_f64(self, v: f64) -> Result<Cell, CellError> {
        Ok(number(v))
    }
    fn serialize_char(self, v: char) -> Result<Cell, CellError> {
        Ok(Cell::Text(v.to_string()))
    }
    fn serialize_str(self, v: &str) -> Result<Cell, CellError> {
        Ok(Cell::Text(v.to_string()))
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<Cell, CellError> {
        unsupported("bytes")
    }
    fn serialize_none(self) -> Result<Cell, CellError> {
        Ok(Cell::Empty)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Cell, CellError> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Cell, CellError> {
        Ok(Cell::Empty)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Cell, CellError> {
        Ok(Cell::Empty)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<Cell, CellError> {
        Ok(Cell::Text(variant.to_string()))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<Cell, CellError> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<Cell, CellError> {
        unsupported("an enum with data")
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, CellError> {
        unsupported("a list in a cell")
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, CellError> {
        unsupported("a tuple in a cell")
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, CellError> {
        unsupported("a tuple in a cell")
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, CellError> {
        unsupported("an enum with data")
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, CellError> {
        unsupported("a map in a cell")
    }
    fn serialize_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStruct, CellError> {
        unsupported("a table in a cell")
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, CellError> {
        unsupported("an enum with data")
    }
}

/// Reads one CSV record into `T` by column name. Columns `T` does not name are ignored.
pub fn from_record<T: DeserializeOwned>(
    header: &csv::StringRecord,
    record: &csv::StringRecord,
) -> Result<T, CellError> {
    T::deserialize(RecordDeserializer {
        fields: header.iter().zip(record.iter()),
    })
}

struct RecordDeserializer<'r, I: Iterator<Item = (&'r str, &'r str)>> {
    fields: I,
}

impl<'de, 'r, I: Iterator<Item = (&'r str, &'r str)>> de::Deserializer<'de>
    for RecordDeserializer<'r, I>
{
    type Error = CellError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, CellError> {
        visitor.visit_map(Fields {
            fields: self.fields,
            value: None,
        })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

struct Fields<'r, I: Iterator<Item = (&'r str, &'r str)>> {
    fields: I,
    value: Option<(&'r str, &'r str)>,
}

impl<'de, 'r, I: Iterator<Item = (&'r str, &'r str)>> MapAccess<'de> for Fields<'r, I> {
    type Error = CellError;

    fn next_key_seed<K: de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, CellError> {
        let Some((name, text)) = self.fields.next() else {
            return Ok(None);
        };
        self.value = Some((name, text));
        let key: de::value::StrDeserializer<'_, CellError> = name.into_deserializer();
        seed.deserialize(key).map(Some)
    }

    fn next_value_seed<V: de::DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, CellError> {
        let (column, text) = self.value.take().expect("a key before its value");
        seed.deserialize(CellDeserializer { column, text })
    }
}

/// One cell: a number, text, or empty.
struct CellDeserializer<'r> {
    column: &'r str,
    text: &'r str,
}

impl CellDeserializer<'_> {
    fn parse<T: std::str::FromStr>(&self, what: &str) -> Result<T, CellError> {
        self.text.trim().parse().map_err(|_| {
            CellError(format!(
                "`{}` is not {what} (column `{}`)",
                self.text, self.column
            ))
        })
    }
}

impl<'de> de::Deserializer<'de> for CellDeserializer<'_> {
    type Error = CellError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, CellError> {
        visitor.visit_str(self.text)
    }
    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, CellError> {
        if self.text.is_empty() {
            return visitor.visit_f64(f64::NAN);
        }
        visitor.visit_f64(self.parse("a number")?)
    }
    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, CellError> {
        self.deserialize_f64(visitor)
    }
    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, CellError> {
        visitor.visit_u64(self.parse("a whole number")?)
    }
    fn deserialize_u32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, CellError> {
        self.deserialize_u64(visitor)
    }
    fn deserialize_u16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, CellError> {
        self.deserialize_u64(visitor)
    }
    fn deserialize_u8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, CellError> {
        self.deserialize_u64(visitor)
    }
    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, CellError> {
        visitor.visit_i64(self.parse("a whole number")?)
    }
    fn deserialize_i32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, CellError> {
        self.deserialize_i64(visitor)
    }
    fn deserialize_i16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, CellError> {
        self.deserialize_i64(visitor)
    }
    fn deserialize_i8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, CellError> {
        self.deserialize_i64(visitor)
    }
    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, CellError> {
        visitor.visit_bool(self.parse("true or false")?)
    }
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, CellError> {
        if self.text.is_empty() {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, CellError> {
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        i128 u128 char str string bytes byte_buf unit unit_struct seq tuple tuple_struct map
        struct enum identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::{Deserialize, Serialize};

    #[derive(Debug, Serialize, Deserialize, PartialEq)]
    struct Row {
        name: String,
        #[serde(rename = "type")]
        kind: String,
        x: f64,
        n: u32,
        maybe: Option<f64>,
    }

    #[test]
    fn undefined_numbers_are_empty_cells_and_read_back_as_nan() {
        let row = Row {
            name: "a".into(),
            kind: String::new(),
            x: f64::NAN,
            n: 3,
            maybe: None,
        };
        let (names, cells) = to_cells(&row).unwrap();
        assert_eq!(names, ["name", "type", "x", "n", "maybe"]);
        assert_eq!(
            cells,
            [
                Cell::Text("a".into()),
                Cell::Text(String::new()),
                Cell::Empty,
                Cell::Count(3),
                Cell::Empty
            ]
        );
        assert_eq!(to_cells(&(1u32, f64::INFINITY)).unwrap().1[1], Cell::Empty);
        // Read back by name, an extra column ignored; the empty text stays text.
        let header = csv::StringRecord::from(vec!["n", "x", "extra", "type", "name", "maybe"]);
        let record = csv::StringRecord::from(vec!["3", "", "EUR", "", "a", "2.5"]);
        let back: Row = from_record(&header, &record).unwrap();
        assert!(back.x.is_nan());
        assert_eq!((back.kind.as_str(), back.n, back.maybe), ("", 3, Some(2.5)));
        let record = csv::StringRecord::from(vec!["", "1", "", "t", "a", ""]);
        let error = from_record::<Row>(&header, &record).unwrap_err();
        assert_eq!(error.0, "`` is not a whole number (column `n`)");
    }
}
