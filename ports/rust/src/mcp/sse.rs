//! An incremental parser of `text/event-stream` (the WHATWG framing): lines
//! end with LF, CRLF or CR; `data:` lines are joined by LF; an event is
//! dispatched at a blank line when it has data.

#[derive(Debug, Default, PartialEq)]
pub struct Event {
    pub event: String,
    pub id: String,
    pub data: String,
}

#[derive(Default)]
pub struct Parser {
    line: Vec<u8>,
    after_cr: bool,
    data: Vec<String>,
    has_data: bool,
    event: String,
    id: String,
}

impl Parser {
    /// Feeds bytes; returns the events they complete.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<Event> {
        let mut out = Vec::new();
        for &b in bytes {
            if self.after_cr {
                self.after_cr = false;
                if b == b'\n' {
                    continue;
                }
            }
            match b {
                b'\n' | b'\r' => {
                    self.after_cr = b == b'\r';
                    let line = std::mem::take(&mut self.line);
                    if let Some(e) = self.line_done(&line) {
                        out.push(e);
                    }
                }
                _ => self.line.push(b),
            }
        }
        out
    }

    fn line_done(&mut self, line: &[u8]) -> Option<Event> {
        if line.is_empty() {
            return self.dispatch();
        }
        let line = String::from_utf8_lossy(line);
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line.as_ref(), ""),
        };
        match field {
            "data" => {
                self.data.push(value.to_string());
                self.has_data = true;
            }
            "event" => self.event = value.to_string(),
            "id" if !value.contains('\0') => self.id = value.to_string(),
            _ => {}
        }
        None
    }

    fn dispatch(&mut self) -> Option<Event> {
        let event = std::mem::take(&mut self.event);
        if !self.has_data {
            return None;
        }
        self.has_data = false;
        let data = std::mem::take(&mut self.data).join("\n");
        Some(Event { event, id: self.id.clone(), data })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn framing() {
        let mut p = Parser::default();
        let mut evs = p.feed(b": ok\n\nevent: message\r\ndata: {\"a\":\r\ndata: 1}\r");
        assert!(evs.is_empty());
        evs = p.feed(b"\r\nid: 7\ndata:x\n\n");
        assert_eq!(evs.len(), 2);
        assert_eq!(evs[0].data, "{\"a\":\n1}");
        assert_eq!(evs[0].event, "message");
        assert_eq!(evs[1].data, "x");
        assert_eq!(evs[1].id, "7");
    }
}
