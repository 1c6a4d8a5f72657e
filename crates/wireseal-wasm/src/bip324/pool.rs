//! `KeyPool`: pre-generated ElligatorSwift keys for [`super::Connection`],
//! with counters of what was taken.
//!
//! A `Connection` finds its pool through the `pool` option, a JavaScript
//! value: wasm-bindgen can borrow an exported object only as a direct
//! argument, so each pool registers its keys under a number in a
//! module-wide table, and the option is read back through the pool's
//! hidden `__wiresealPoolId` method. A freed pool leaves the table.

use crate::args;
use crate::errors::{self, JsResult};
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::{Rc, Weak};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wireseal::bip324 as b2;
use wireseal::error::ErrorKind;
use wireseal::keys::EllSwiftKeypair;

/// The most keys a pool may hold.
const MAX_CAPACITY: u64 = 1 << 16;

/// A pool's keys and counters, shared with the table.
struct Shared {
    keys: b2::KeyPool,
    taken: Cell<u64>,
    misses: Cell<u64>,
    generated: Cell<u64>,
}

impl Shared {
    /// A key from stock, or a fresh one (counted as a miss) when empty.
    fn take(&self) -> EllSwiftKeypair {
        self.taken.set(self.taken.get() + 1);
        self.keys.try_take().unwrap_or_else(|| {
            self.misses.set(self.misses.get() + 1);
            EllSwiftKeypair::generate()
        })
    }

    /// Tops the pool up; returns the keys added.
    fn top_up(&self) -> usize {
        let n = self.keys.fill();
        self.generated.set(self.generated.get() + n as u64);
        n
    }
}

thread_local! {
    /// Every live pool by number.
    static POOLS: RefCell<BTreeMap<u32, Weak<Shared>>> = const { RefCell::new(BTreeMap::new()) };
    /// The next pool's number.
    static NEXT: Cell<u32> = const { Cell::new(1) };
}

/// A key from the pool given as option `pool`.
///
/// # Errors
///
/// `invalid_input` when `pool` is not a live `KeyPool`.
pub(super) fn take_from(pool: &JsValue) -> JsResult<EllSwiftKeypair> {
    let bad = || errors::invalid_input("options.pool must be a KeyPool that was not freed");
    let f = js_sys::Reflect::get(pool, &JsValue::from_str("__wiresealPoolId"))
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
        .ok_or_else(bad)?;
    let id = f
        .call0(pool)
        .ok()
        .and_then(|v| v.as_f64())
        .ok_or_else(bad)?;
    let id = args::u32_arg(id, "pool id").map_err(|_| bad())?;
    let shared = POOLS
        .with(|p| p.borrow().get(&id).and_then(Weak::upgrade))
        .ok_or_else(bad)?;
    Ok(shared.take())
}

/// Pre-generated ElligatorSwift keys (each encoded with fresh auxiliary
/// randomness), so that a new connection does not wait for key
/// generation: `new Connection(role, { pool })` takes one.
#[wasm_bindgen(js_name = bip324_KeyPool)]
pub struct KeyPool {
    shared: Rc<Shared>,
    id: u32,
}

#[wasm_bindgen(js_class = bip324_KeyPool)]
impl KeyPool {
    /// A pool holding up to `capacity` keys (32 by default, at most
    /// 65536), filled now.
    ///
    /// # Errors
    ///
    /// `limit` for a capacity over 65536; `invalid_input` for one that is
    /// not a non-negative integer.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_optional_param_type = "number")] capacity: Option<JsValue>,
    ) -> JsResult<KeyPool> {
        let capacity = match capacity {
            None => 32,
            Some(c) => {
                let c = c
                    .as_f64()
                    .ok_or_else(|| errors::invalid_input("capacity must be a number"))?;
                args::int(c, u64::MAX, "capacity")?
            }
        };
        if capacity > MAX_CAPACITY {
            return Err(errors::error(
                ErrorKind::Limit,
                "a key pool holds at most 65536 keys",
            ));
        }
        let shared = Rc::new(Shared {
            keys: b2::KeyPool::new((capacity as usize).max(1)),
            taken: Cell::new(0),
            misses: Cell::new(0),
            generated: Cell::new(0),
        });
        shared.top_up();
        let id = NEXT.with(|n| {
            let id = n.get();
            n.set(id.wrapping_add(1).max(1));
            id
        });
        POOLS.with(|p| p.borrow_mut().insert(id, Rc::downgrade(&shared)));
        Ok(Self { shared, id })
    }

    /// Keys ready.
    #[wasm_bindgen(getter)]
    pub fn length(&self) -> usize {
        self.shared.keys.len()
    }

    /// The most keys the pool holds.
    #[wasm_bindgen(getter)]
    pub fn capacity(&self) -> usize {
        self.shared.keys.capacity()
    }

    /// Tops the pool up; returns the keys added.
    pub fn fill(&self) -> usize {
        self.shared.top_up()
    }

    /// Counters since the pool was made: `ready` (keys in stock),
    /// `capacity`, `generated` (keys made by filling), `taken` (keys
    /// handed to connections) and `misses` (connections that found the
    /// pool empty and generated their key on the spot).
    ///
    /// # Errors
    ///
    /// Never in practice.
    #[wasm_bindgen(
        unchecked_return_type = "{ ready: number, capacity: number, generated: number, taken: number, misses: number }"
    )]
    pub fn stats(&self) -> JsResult<JsValue> {
        let s = &self.shared;
        let n = |v: u64| JsValue::from_f64(v as f64);
        args::object(&[
            ("ready", n(s.keys.len() as u64)),
            ("capacity", n(s.keys.capacity() as u64)),
            ("generated", n(s.generated.get())),
            ("taken", n(s.taken.get())),
            ("misses", n(s.misses.get())),
        ])
    }

    /// The pool's number in the module's table (how a `Connection` finds
    /// it); not part of the API.
    #[wasm_bindgen(js_name = __wiresealPoolId, skip_typescript)]
    pub fn pool_id(&self) -> u32 {
        self.id
    }
}

impl Drop for KeyPool {
    fn drop(&mut self) {
        // `try_with`: the table may already be gone at thread exit.
        let _ = POOLS.try_with(|p| p.borrow_mut().remove(&self.id));
    }
}
