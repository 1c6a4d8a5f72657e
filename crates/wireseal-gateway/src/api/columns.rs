//! Rows read by column name: [`Row`] over SQLite's and PostgreSQL's rows,
//! [`Column`] for each type a column is read as, and [`row_shape!`], which
//! declares a struct whose fields are read from the columns of their names.

use rusqlite::types::ValueRef;
use tokio_postgres::types::Type;

/// A column of a row that is not what its shape needs.
#[derive(Debug, thiserror::Error)]
#[error("column {column}: {fault}")]
pub(crate) struct ColumnError {
    /// The column's name.
    column: &'static str,
    /// What is wrong with it.
    #[source]
    fault: Fault,
}

/// What is wrong with a column.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Fault {
    /// The query gives no column of that name.
    #[error("not in the row")]
    Missing,
    /// NULL where the shape needs a value.
    #[error("NULL where a value is needed")]
    Null,
    /// A value of another type.
    #[error("{found} where {wanted} is needed")]
    Type {
        /// The type found.
        found: String,
        /// The type needed.
        wanted: &'static str,
    },
    /// SQLite could not give the value.
    #[error("{0}")]
    Sqlite(#[source] rusqlite::Error),
    /// PostgreSQL's value could not be decoded.
    #[error("{0}")]
    Postgres(#[source] tokio_postgres::Error),
}

impl Fault {
    fn at(self, column: &'static str) -> ColumnError {
        ColumnError {
            column,
            fault: self,
        }
    }
}

/// One row of an answer, its columns read by name; NULL is `None`.
pub(crate) trait Row {
    /// An integer column.
    fn int(&self, column: &'static str) -> Result<Option<i64>, ColumnError>;
    /// A floating-point column (integers are taken too).
    fn real(&self, column: &'static str) -> Result<Option<f64>, ColumnError>;
    /// A text column.
    fn text(&self, column: &'static str) -> Result<Option<String>, ColumnError>;
    /// A binary column.
    fn blob(&self, column: &'static str) -> Result<Option<Vec<u8>>, ColumnError>;
}

/// A type one column is read as: `Option<T>` where NULL may be, `T` where
/// it may not.
pub(crate) trait Column: Sized {
    /// The value of `column` in `row`.
    fn read(row: &dyn Row, column: &'static str) -> Result<Self, ColumnError>;
}

impl dyn Row + '_ {
    /// The value of `column`, as `C`.
    pub(crate) fn get<C: Column>(&self, column: &'static str) -> Result<C, ColumnError> {
        C::read(self, column)
    }
}

macro_rules! column {
    ($ty:ty, $read:ident) => {
        impl Column for Option<$ty> {
            fn read(row: &dyn Row, column: &'static str) -> Result<Self, ColumnError> {
                row.$read(column)
            }
        }

        impl Column for $ty {
            fn read(row: &dyn Row, column: &'static str) -> Result<Self, ColumnError> {
                row.$read(column)?.ok_or_else(|| Fault::Null.at(column))
            }
        }
    };
}

column!(i64, int);
column!(f64, real);
column!(String, text);
column!(Vec<u8>, blob);

/// A row shape: one struct per kind of row the API reads.
pub(crate) trait FromRow: Sized + Send + 'static {
    /// The struct of `row`.
    ///
    /// # Errors
    /// A column it needs is missing, NULL where it may not be, or of
    /// another type.
    fn from_row(row: &dyn Row) -> Result<Self, ColumnError>;
}

/// Declares a row shape: a struct whose fields are named as the columns
/// they are read from, and its [`FromRow`].
macro_rules! row_shape {
    ($(#[$m:meta])* $name:ident { $($(#[$fm:meta])* $field:ident: $ty:ty,)* }) => {
        $(#[$m])*
        pub(crate) struct $name {
            $($(#[$fm])* pub(crate) $field: $ty,)*
        }

        impl $crate::api::columns::FromRow for $name {
            fn from_row(
                row: &dyn $crate::api::columns::Row,
            ) -> Result<Self, $crate::api::columns::ColumnError> {
                Ok(Self {
                    $($field: row.get(stringify!($field))?,)*
                })
            }
        }
    };
}
pub(crate) use row_shape;

impl Row for rusqlite::Row<'_> {
    fn int(&self, column: &'static str) -> Result<Option<i64>, ColumnError> {
        match sqlite_value(self, column)? {
            ValueRef::Null => Ok(None),
            ValueRef::Integer(v) => Ok(Some(v)),
            other => Err(sqlite_type(other, "an integer").at(column)),
        }
    }

    fn real(&self, column: &'static str) -> Result<Option<f64>, ColumnError> {
        match sqlite_value(self, column)? {
            ValueRef::Null => Ok(None),
            ValueRef::Real(v) => Ok(Some(v)),
            ValueRef::Integer(v) => Ok(Some(v as f64)),
            other => Err(sqlite_type(other, "a number").at(column)),
        }
    }

    fn text(&self, column: &'static str) -> Result<Option<String>, ColumnError> {
        match sqlite_value(self, column)? {
            ValueRef::Null => Ok(None),
            ValueRef::Text(t) => Ok(Some(String::from_utf8_lossy(t).into_owned())),
            other => Err(sqlite_type(other, "text").at(column)),
        }
    }

    fn blob(&self, column: &'static str) -> Result<Option<Vec<u8>>, ColumnError> {
        match sqlite_value(self, column)? {
            ValueRef::Null => Ok(None),
            ValueRef::Blob(b) => Ok(Some(b.to_vec())),
            other => Err(sqlite_type(other, "a blob").at(column)),
        }
    }
}

fn sqlite_value<'a>(
    row: &'a rusqlite::Row<'_>,
    column: &'static str,
) -> Result<ValueRef<'a>, ColumnError> {
    row.get_ref(column).map_err(|e| match e {
        rusqlite::Error::InvalidColumnName(_) => Fault::Missing.at(column),
        e => Fault::Sqlite(e).at(column),
    })
}

fn sqlite_type(found: ValueRef<'_>, wanted: &'static str) -> Fault {
    Fault::Type {
        found: found.data_type().to_string().to_lowercase(),
        wanted,
    }
}

impl Row for tokio_postgres::Row {
    fn int(&self, column: &'static str) -> Result<Option<i64>, ColumnError> {
        let (i, t) = pg_column(self, column)?;
        let get = |e| Fault::Postgres(e).at(column);
        if *t == Type::INT8 {
            self.try_get::<_, Option<i64>>(i).map_err(get)
        } else if *t == Type::INT4 {
            Ok(self
                .try_get::<_, Option<i32>>(i)
                .map_err(get)?
                .map(i64::from))
        } else if *t == Type::INT2 {
            Ok(self
                .try_get::<_, Option<i16>>(i)
                .map_err(get)?
                .map(i64::from))
        } else {
            Err(pg_type(t, "an integer").at(column))
        }
    }

    fn real(&self, column: &'static str) -> Result<Option<f64>, ColumnError> {
        let (i, t) = pg_column(self, column)?;
        let get = |e| Fault::Postgres(e).at(column);
        if *t == Type::FLOAT8 {
            self.try_get::<_, Option<f64>>(i).map_err(get)
        } else if *t == Type::FLOAT4 {
            Ok(self
                .try_get::<_, Option<f32>>(i)
                .map_err(get)?
                .map(f64::from))
        } else {
            self.int(column).map(|v| v.map(|v| v as f64))
        }
    }

    fn text(&self, column: &'static str) -> Result<Option<String>, ColumnError> {
        let (i, _) = pg_column(self, column)?;
        self.try_get(i).map_err(|e| Fault::Postgres(e).at(column))
    }

    fn blob(&self, column: &'static str) -> Result<Option<Vec<u8>>, ColumnError> {
        let (i, t) = pg_column(self, column)?;
        if *t != Type::BYTEA {
            return Err(pg_type(t, "bytea").at(column));
        }
        self.try_get(i).map_err(|e| Fault::Postgres(e).at(column))
    }
}

/// The position and type of `column`.
fn pg_column<'a>(
    row: &'a tokio_postgres::Row,
    column: &'static str,
) -> Result<(usize, &'a Type), ColumnError> {
    row.columns()
        .iter()
        .enumerate()
        .find(|(_, c)| c.name() == column)
        .map(|(i, c)| (i, c.type_()))
        .ok_or_else(|| Fault::Missing.at(column))
}

fn pg_type(found: &Type, wanted: &'static str) -> Fault {
    Fault::Type {
        found: found.name().to_owned(),
        wanted,
    }
}
