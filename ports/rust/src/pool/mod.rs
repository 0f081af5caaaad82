//! The session pool (P1–P3, P7.2, C7): one shared attempt per server,
//! published before it connects, its outcome kept until the server is
//! invalidated; the registry of exposed tool names.

pub mod call;
pub mod connect;
pub mod status;
pub mod time;
pub mod tools;

use crate::config::{self, Config, Server};
use crate::mcp::session::{Session, Tool};
use crate::mutant;
use crate::store;
use crate::text;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// A connected session: its first page of tools, or why listing failed.
pub struct Ready {
    pub session: Arc<Session>,
    pub tools: Vec<Tool>,
    pub list_error: Option<String>,
}

pub enum Outcome {
    Connected(Ready),
    Failed(String),
}

/// One connection attempt, shared by every caller (P1.2).
pub struct Slot {
    cancel: CancellationToken,
    outcome: watch::Sender<Option<Arc<Outcome>>>,
}

impl Slot {
    pub async fn wait(&self) -> Arc<Outcome> {
        let mut rx = self.outcome.subscribe();
        let v = rx.wait_for(|o| o.is_some()).await.map(|o| o.clone());
        match v {
            Ok(Some(o)) => o,
            _ => Arc::new(Outcome::Failed("the attempt ended without an outcome".into())),
        }
    }

    fn outcome(&self) -> Option<Arc<Outcome>> {
        self.outcome.borrow().clone()
    }
}

#[derive(Default)]
struct State {
    slots: HashMap<String, Arc<Slot>>,
    /// exposed name → (server, tool)
    registry: HashMap<String, (String, String)>,
}

pub struct Pool {
    state: Mutex<State>,
    store_lock: Mutex<()>,
    pub state_dir: PathBuf,
    pub workspace: PathBuf,
    pub catalog: PathBuf,
    tasks: TaskTracker,
}

impl Pool {
    pub fn new(state_dir: PathBuf, workspace: PathBuf, catalog: PathBuf) -> Arc<Pool> {
        Arc::new(Pool {
            state: Mutex::new(State::default()),
            store_lock: Mutex::new(()),
            state_dir,
            workspace,
            catalog,
            tasks: TaskTracker::new(),
        })
    }

    /// The configuration as stored (C8.4: what cannot be read reads as
    /// what decoded).
    pub fn config(&self) -> Config {
        let _g = self.store_lock.lock().unwrap();
        store::read(&self.state_dir).map(|b| config::decode(&b)).unwrap_or_default()
    }

    /// Writes the configuration whole (C8.1).
    pub fn save_config(&self, cfg: &Config) -> Result<(), String> {
        let _g = self.store_lock.lock().unwrap();
        store::write(&self.state_dir, &config::encode(cfg))
    }

    /// The server's attempt, started when there is none (P1.2: published
    /// before it connects).
    pub fn ensure(self: &Arc<Self>, name: &str, cfg: &Server) -> Arc<Slot> {
        let mut st = self.state.lock().unwrap();
        if let Some(s) = st.slots.get(name) {
            if !mutant::on("RS-P1.1-no-reuse") {
                return s.clone();
            }
        }
        let slot = Arc::new(Slot { cancel: CancellationToken::new(), outcome: watch::channel(None).0 });
        if !mutant::on("RS-P1.2-published-late") {
            st.slots.insert(name.to_string(), slot.clone());
        }
        drop(st);
        let (me, name, cfg, s) = (self.clone(), name.to_string(), cfg.clone(), slot.clone());
        self.tasks.spawn(async move { me.attempt(name, cfg, s).await });
        slot
    }

    async fn attempt(self: Arc<Self>, name: String, cfg: Server, slot: Arc<Slot>) {
        let outcome = connect::connect(&cfg, &slot.cancel).await;
        let Some(outcome) = self.publish(&name, &slot, outcome) else { return };
        if let Outcome::Connected(r) = outcome {
            r.session.close_now(Duration::ZERO).await;
        }
        slot.outcome.send_replace(Some(Arc::new(Outcome::Failed(connect::CANCELLED.into()))));
    }

    /// Publishes the outcome when the slot is still the server's; gives it
    /// back otherwise (the server was invalidated meanwhile).
    fn publish(&self, name: &str, slot: &Arc<Slot>, outcome: Outcome) -> Option<Outcome> {
        let name = name.to_string();
        let mut st = self.state.lock().unwrap();
        if mutant::on("RS-P1.2-published-late") {
            st.slots.entry(name.clone()).or_insert(slot.clone());
        }
        let current = st.slots.get(&name).is_some_and(|s| Arc::ptr_eq(s, slot));
        if current {
            if let Outcome::Connected(r) = &outcome {
                if r.list_error.is_none() {
                    for t in &r.tools {
                        st.registry.insert(text::exposed(&name, &t.name), (name.clone(), t.name.clone()));
                    }
                }
            }
            let keep = !(mutant::on("RS-P1.3-failure-forgotten") && matches!(outcome, Outcome::Failed(_)));
            if !keep {
                st.slots.remove(&name);
            }
            slot.outcome.send_replace(Some(Arc::new(outcome)));
            return None;
        }
        Some(outcome)
    }

    /// C7: drops the server's session and its tools from the registry; the
    /// session is closed in the background (P2.4), an attempt in flight
    /// cancelled (P2.1).
    pub fn invalidate(&self, name: &str) {
        if mutant::on("RS-C7.1-no-invalidation") {
            return;
        }
        let slot = {
            let mut st = self.state.lock().unwrap();
            if !mutant::on("RS-P7.2-registry-kept") {
                st.registry.retain(|_, (s, _)| s != name);
            }
            st.slots.remove(name)
        };
        let Some(slot) = slot else { return };
        if !mutant::on("RS-P2.1-not-cancelled") {
            slot.cancel.cancel();
        }
        if let Some(o) = slot.outcome() {
            if let Outcome::Connected(_) = &*o {
                self.tasks.spawn(async move {
                    if let Outcome::Connected(r) = &*o {
                        r.session.close(time::close_grace()).await;
                    }
                });
            }
        }
    }

    /// The registry's server and tool for an exposed name (P7.3).
    pub fn resolve(&self, exposed: &str) -> Option<(String, String)> {
        self.state.lock().unwrap().registry.get(exposed).cloned()
    }

    /// The server's connected session in the pool, if any (P10.1).
    pub fn session(&self, name: &str) -> Option<Arc<Session>> {
        let slot = self.state.lock().unwrap().slots.get(name).cloned()?;
        match &*slot.outcome()? {
            Outcome::Connected(r) => Some(r.session.clone()),
            Outcome::Failed(_) => None,
        }
    }

    /// Every slot with an outcome, by server name (P14.1).
    pub fn outcomes(&self) -> Vec<(String, Arc<Outcome>)> {
        let st = self.state.lock().unwrap();
        st.slots.iter().filter_map(|(n, s)| s.outcome().map(|o| (n.clone(), o))).collect()
    }

    /// Connects every enabled server with a transport, in parallel (P8.1,
    /// P16.2), and returns each one's outcome.
    pub async fn connect_all(self: &Arc<Self>, cfg: &Config) -> HashMap<String, Arc<Outcome>> {
        let wanted: Vec<(&String, &Server)> =
            cfg.iter().filter(|(_, s)| s.enabled && !s.transport().is_empty()).collect();
        let mut out = HashMap::new();
        if mutant::on("RS-P16.2-sequential") {
            for (n, s) in wanted {
                let o = self.ensure(n, s).wait().await;
                out.insert(n.clone(), o);
            }
            return out;
        }
        let slots: Vec<(String, Arc<Slot>)> = wanted.iter().map(|(n, s)| ((*n).clone(), self.ensure(n, s))).collect();
        for (n, slot) in slots {
            out.insert(n, slot.wait().await);
        }
        out
    }

    /// H4.4: the connections started in the background.
    pub fn prewarm(self: &Arc<Self>) {
        let cfg = self.config();
        for (n, s) in cfg.iter().filter(|(_, s)| s.enabled && !s.transport().is_empty()) {
            self.ensure(n, s);
        }
    }

    /// S1.1: every attempt cancelled, every session closed, every stdio
    /// server's group ended, bounded.
    pub async fn shutdown(&self) {
        let slots: Vec<Arc<Slot>> = {
            let mut st = self.state.lock().unwrap();
            st.registry.clear();
            st.slots.drain().map(|(_, s)| s).collect()
        };
        for slot in slots {
            slot.cancel.cancel();
            if let Some(o) = slot.outcome() {
                self.tasks.spawn(async move {
                    if let Outcome::Connected(r) = &*o {
                        r.session.close_now(time::shutdown_grace()).await;
                    }
                });
            }
        }
        self.tasks.close();
        let _ = tokio::time::timeout(Duration::from_secs(4), self.tasks.wait()).await;
    }
}
