//! Python arguments in fleetsim's types: `set` items as overrides, `vary` items as sweep
//! parameters, Python values as TOML values.

use fleetsim::scenario::{Override, field_path};
use fleetsim::sweep::{Spec, Vary};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList, PyString, PyTuple};

/// A Python value as TOML: bool, int (any object with `__index__`, numpy's too), float (any
/// with `__float__`), str, list or tuple (an array), dict with str keys (a table).
pub fn to_toml(value: &Bound<'_, PyAny>) -> PyResult<toml::Value> {
    if let Ok(b) = value.cast::<PyBool>() {
        return Ok(toml::Value::Boolean(b.is_true()));
    }
    if let Ok(s) = value.cast::<PyString>() {
        return Ok(toml::Value::String(s.to_str()?.to_string()));
    }
    if let Ok(dict) = value.cast::<PyDict>() {
        let mut table = toml::Table::new();
        for (key, item) in dict.iter() {
            let key: String = key.extract().map_err(|_| {
                PyTypeError::new_err(format!("a table's keys must be str, got {key}"))
            })?;
            table.insert(key, to_toml(&item)?);
        }
        return Ok(toml::Value::Table(table));
    }
    if value.cast::<PyList>().is_ok() || value.cast::<PyTuple>().is_ok() {
        let items = value
            .try_iter()?
            .map(|item| to_toml(&item?))
            .collect::<PyResult<Vec<_>>>()?;
        return Ok(toml::Value::Array(items));
    }
    if value.hasattr("__index__")? {
        let n: i64 = value.extract().map_err(|_| {
            PyValueError::new_err(format!(
                "{value} is out of range: TOML integers go from -9223372036854775808 to 9223372036854775807"
            ))
        })?;
        return Ok(toml::Value::Integer(n));
    }
    if let Ok(x) = value.extract::<f64>() {
        return Ok(toml::Value::Float(x));
    }
    Err(PyTypeError::new_err(format!(
        "cannot give {} ({value}) to a scenario field: use bool, int, float, str, list or dict",
        value.get_type().name()?
    )))
}

/// One `set` item: `"PATH=VALUE"`, read as `--set` reads it, or a `(path, value)` pair whose
/// value keeps its Python type.
pub fn override_of(item: &Bound<'_, PyAny>) -> PyResult<Override> {
    if let Ok(text) = item.cast::<PyString>() {
        return Override::parse(text.to_str()?)
            .map_err(|problem| PyValueError::new_err(format!("set: {problem}")));
    }
    let (path, value): (String, Bound<'_, PyAny>) = item.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "set: expected \"PATH=VALUE\" or a (path, value) pair, got {item}"
        ))
    })?;
    let path =
        field_path(&path).map_err(|problem| PyValueError::new_err(format!("set: {problem}")))?;
    Ok(Override::new(&path, to_toml(&value)?))
}

/// One `vary` item: `"PATH=SPEC"`, read as `--vary` reads it, or a `(path, spec)` pair whose
/// spec is a spec string (`"0..16:2"`) or a list of values (`[0, 2, 4]`), as in a `[sweep]`
/// table.
pub fn vary_of(item: &Bound<'_, PyAny>) -> PyResult<Vary> {
    if let Ok(text) = item.cast::<PyString>() {
        return Vary::parse(text.to_str()?)
            .map_err(|problem| PyValueError::new_err(format!("vary: {problem}")));
    }
    let (path, spec): (String, Bound<'_, PyAny>) = item.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "vary: expected \"PATH=SPEC\" or a (path, spec) pair, got {item}"
        ))
    })?;
    let fail = |problem: String| PyValueError::new_err(format!("vary `{path}`: {problem}"));
    let field = field_path(&path).map_err(fail)?;
    let (spec, text) = Spec::from_toml(&to_toml(&spec)?).map_err(fail)?;
    Ok(Vary {
        path: field,
        spec,
        text,
    })
}
