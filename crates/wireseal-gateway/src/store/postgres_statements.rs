//! The statements the PostgreSQL store prepares on each connection.

use super::sql::postgres as q;
use tokio_postgres::{Client, Statement};

/// The prepared statements of one connection.
pub(super) struct Statements {
    pub packets: Statement,
    pub receptions: Statement,
    pub receptions_skip: Statement,
    pub packets_from_stage: Statement,
    pub receptions_from_stage: Statement,
    pub receptions_from_stage_skip: Statement,
    pub nodes: Statement,
    pub keys: Statement,
    pub conflicts: Statement,
    pub link: [Statement; 2],
    pub prune: Statement,
    /// The MeshCore tables' statements.
    pub meshcore: super::meshcore::postgres::Statements,
}

impl Statements {
    /// Creates the session's staging tables and prepares every statement
    /// on `client`.
    pub(super) async fn prepare(client: &Client) -> Result<Self, tokio_postgres::Error> {
        client.batch_execute(&q::staging()).await?;
        let prep = |sql: String| async move { client.prepare(&sql).await };
        Ok(Self {
            packets: prep(q::packets_unnest()).await?,
            receptions: prep(q::receptions_unnest(false)).await?,
            receptions_skip: prep(q::receptions_unnest(true)).await?,
            packets_from_stage: prep(q::packets_from_stage()).await?,
            receptions_from_stage: prep(q::receptions_from_stage(false)).await?,
            receptions_from_stage_skip: prep(q::receptions_from_stage(true)).await?,
            nodes: prep(q::nodes()).await?,
            keys: prep(q::KEYS.to_owned()).await?,
            conflicts: prep(q::conflicts()).await?,
            link: {
                let [a, b] = q::link();
                [prep(a).await?, prep(b).await?]
            },
            prune: prep(q::PRUNE.to_owned()).await?,
            meshcore: super::meshcore::postgres::Statements::prepare(client).await?,
        })
    }
}
