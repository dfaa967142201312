//! Answers for clients pointed at the wrong port. happybase on the Thrift2 port, a Thrift2 SDK on
//! the Thrift1 port and a browser on either would otherwise get "unknown method X" (which some
//! clients cannot even print) or a bare 400: the server knows both IDLs and all its addresses,
//! so it says which port the client wanted.
//!
//! A method of the other IDL is answered as that IDL's own declared exception (every method of
//! both services declares `IOError`/`TIOError` as field 1, a struct whose field 1 is the
//! message), so the client raises an ordinary, printable error carrying the hint.

use std::net::SocketAddr;

use thrift::protocol::{
    TBinaryOutputProtocol, TCompactOutputProtocol, TFieldIdentifier, TMessageIdentifier,
    TMessageType, TOutputProtocol, TStructIdentifier, TType,
};

use crate::thrift::frame::Protocol;

/// The methods of HBase's Thrift1 service `Hbase` (idl/hbase1.thrift).
pub const THRIFT1_METHODS: &[&str] = &[
    "enableTable",
    "disableTable",
    "isTableEnabled",
    "compact",
    "majorCompact",
    "getTableNames",
    "getTableNamesWithIsTableEnabled",
    "getColumnDescriptors",
    "getTableRegions",
    "createTable",
    "deleteTable",
    "get",
    "getVer",
    "getVerTs",
    "getRow",
    "getRowWithColumns",
    "getRowTs",
    "getRowWithColumnsTs",
    "getRows",
    "getRowsWithColumns",
    "getRowsTs",
    "getRowsWithColumnsTs",
    "mutateRow",
    "mutateRowTs",
    "mutateRows",
    "mutateRowsTs",
    "atomicIncrement",
    "deleteAll",
    "deleteAllTs",
    "deleteAllRow",
    "increment",
    "incrementRows",
    "deleteAllRowTs",
    "scannerOpenWithScan",
    "scannerOpen",
    "scannerOpenWithStop",
    "scannerOpenWithPrefix",
    "scannerOpenTs",
    "scannerOpenWithStopTs",
    "scannerGet",
    "scannerGetList",
    "scannerClose",
    "getRegionInfo",
    "append",
    "checkAndPut",
    "getThriftServerType",
    "getClusterId",
    "grant",
    "revoke",
];

/// The methods of HBase's Thrift2 service `THBaseService` (idl/hbase2.thrift).
pub const THRIFT2_METHODS: &[&str] = &[
    "exists",
    "existsAll",
    "get",
    "getMultiple",
    "put",
    "checkAndPut",
    "putMultiple",
    "deleteSingle",
    "deleteMultiple",
    "checkAndDelete",
    "increment",
    "append",
    "openScanner",
    "getScannerRows",
    "closeScanner",
    "mutateRow",
    "getScannerResults",
    "getRegionLocation",
    "getAllRegionLocations",
    "checkAndMutate",
    "getTableDescriptor",
    "getTableDescriptors",
    "tableExists",
    "getTableDescriptorsByPattern",
    "getTableDescriptorsByNamespace",
    "getTableNamesByPattern",
    "getTableNamesByNamespace",
    "createTable",
    "deleteTable",
    "truncateTable",
    "enableTable",
    "disableTable",
    "isTableEnabled",
    "isTableDisabled",
    "isTableAvailable",
    "isTableAvailableWithSplit",
    "addColumnFamily",
    "deleteColumnFamily",
    "modifyColumnFamily",
    "modifyTable",
    "createNamespace",
    "modifyNamespace",
    "deleteNamespace",
    "getNamespaceDescriptor",
    "listNamespaceDescriptors",
    "listNamespaces",
    "getThriftServerType",
    "getClusterId",
    "getSlowLogResponses",
    "clearSlowLogResponses",
    "grant",
    "revoke",
];

/// Which of the two Thrift services a port serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Idl {
    Thrift1,
    Thrift2,
}

impl Idl {
    fn title(self) -> &'static str {
        match self {
            Idl::Thrift1 => "Thrift1 (Hbase)",
            Idl::Thrift2 => "Thrift2 (THBaseService)",
        }
    }

    fn short(self) -> &'static str {
        match self {
            Idl::Thrift1 => "Thrift1",
            Idl::Thrift2 => "Thrift2",
        }
    }

    fn flag(self) -> &'static str {
        match self {
            Idl::Thrift1 => "--thrift1-addr",
            Idl::Thrift2 => "--thrift2-addr",
        }
    }

    fn other(self) -> Idl {
        match self {
            Idl::Thrift1 => Idl::Thrift2,
            Idl::Thrift2 => Idl::Thrift1,
        }
    }

    fn methods(self) -> &'static [&'static str] {
        match self {
            Idl::Thrift1 => THRIFT1_METHODS,
            Idl::Thrift2 => THRIFT2_METHODS,
        }
    }
}

/// The server's listeners as `host:port` a client can reach ([`Ports::reachable`]).
#[derive(Debug, Clone, Default)]
pub struct Ports {
    pub thrift1: Option<String>,
    pub thrift2: Option<String>,
    pub http: Option<String>,
}

impl Ports {
    fn of(&self, idl: Idl) -> Option<&str> {
        match idl {
            Idl::Thrift1 => self.thrift1.as_deref(),
            Idl::Thrift2 => self.thrift2.as_deref(),
        }
    }

    /// `addr` as a client should dial it: a wildcard bind is named by `host` (the advertised
    /// host name).
    pub fn reachable(addr: SocketAddr, host: &str) -> String {
        if addr.ip().is_unspecified() {
            format!("{host}:{}", addr.port())
        } else {
            addr.to_string()
        }
    }
}

/// What one Thrift port tells a client that meant another.
#[derive(Debug, Clone)]
pub struct WrongPort {
    serves: Idl,
    ports: Ports,
}

impl WrongPort {
    pub fn new(serves: Idl, ports: Ports) -> WrongPort {
        WrongPort { serves, ports }
    }

    /// The hint for a call of `method` this port's service does not have, when the other
    /// service has it.
    pub fn method_hint(&self, method: &str) -> Option<String> {
        let other = self.serves.other();
        if self.serves.methods().contains(&method) || !other.methods().contains(&method) {
            return None;
        }
        let there = match self.ports.of(other) {
            Some(addr) => format!("{} is on {addr}", other.short()),
            None => format!(
                "this server's {} gateway is off (start it with {})",
                other.short(),
                other.flag()
            ),
        };
        Some(format!(
            "{method} is a {} method; this port serves {}; {there}",
            other.title(),
            self.serves.title()
        ))
    }

    /// One line for a browser (an HTTP GET) on a Thrift port.
    pub fn browser_hint(&self) -> String {
        let web = match &self.ports.http {
            Some(addr) => format!("the status page and HBase's REST API are at http://{addr}/"),
            None => "this server's HTTP listener is off (start it with --http-addr)".into(),
        };
        format!(
            "This is redbase's {} port, for Thrift clients (Thrift over HTTP is a POST); {web}",
            self.serves.title()
        )
    }
}

/// The reply to call `name` (sequence id `seq`) carrying `text` as the method's declared I/O
/// exception: field 1 of the result struct, itself a struct with the message as field 1.
pub fn declared_error_reply(name: &str, seq: i32, protocol: Protocol, text: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let written = match protocol {
        Protocol::Binary { .. } => {
            let mut o = TBinaryOutputProtocol::new(&mut out, true);
            write_declared_error(&mut o, name, seq, text)
        }
        Protocol::Compact => {
            let mut o = TCompactOutputProtocol::new(&mut out);
            write_declared_error(&mut o, name, seq, text)
        }
    };
    if let Err(e) = written {
        tracing::warn!(error = %e, "cannot write a wrong-port reply");
    }
    out
}

fn write_declared_error(
    o: &mut dyn TOutputProtocol,
    name: &str,
    seq: i32,
    text: &str,
) -> thrift::Result<()> {
    o.write_message_begin(&TMessageIdentifier::new(name, TMessageType::Reply, seq))?;
    o.write_struct_begin(&TStructIdentifier::new(format!("{name}_result")))?;
    o.write_field_begin(&TFieldIdentifier::new("io", TType::Struct, 1))?;
    o.write_struct_begin(&TStructIdentifier::new("IOError"))?;
    o.write_field_begin(&TFieldIdentifier::new("message", TType::String, 1))?;
    o.write_string(text)?;
    o.write_field_end()?;
    o.write_field_stop()?;
    o.write_struct_end()?;
    o.write_field_end()?;
    o.write_field_stop()?;
    o.write_struct_end()?;
    o.write_message_end()?;
    o.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The method names of a service in an IDL file, read the simple way: every `name(` inside
    /// the service block that is not `throws`.
    fn idl_methods(idl: &str) -> Vec<String> {
        let service = &idl[idl.find("\nservice ").expect("a service block")..];
        let mut names = Vec::new();
        for line in service.lines() {
            let code = line.split("//").next().unwrap_or_default();
            for (i, _) in code.match_indices('(') {
                let before = code[..i].trim_end();
                let name: String = before
                    .chars()
                    .rev()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .collect();
                let declared_after_type = before.len() > name.len()
                    && before[..before.len() - name.len()].ends_with(|c: char| c.is_whitespace());
                if !name.is_empty()
                    && name != "throws"
                    && declared_after_type
                    && !before[..before.len() - name.len()].contains(':')
                {
                    names.push(name);
                }
            }
        }
        names
    }

    #[test]
    fn the_method_lists_are_the_idls() {
        let t1 = idl_methods(include_str!("../../../idl/hbase1.thrift"));
        let t2 = idl_methods(include_str!("../../../idl/hbase2.thrift"));
        assert_eq!(t1, THRIFT1_METHODS, "idl/hbase1.thrift");
        assert_eq!(t2, THRIFT2_METHODS, "idl/hbase2.thrift");
    }

    #[test]
    fn hints_name_the_method_the_services_and_the_other_port() {
        let ports = Ports {
            thrift1: Some("127.0.0.1:9090".into()),
            thrift2: Some("127.0.0.1:9091".into()),
            http: Some(Ports::reachable("0.0.0.0:8080".parse().unwrap(), "db1")),
        };
        let t2 = WrongPort::new(Idl::Thrift2, ports.clone());
        assert_eq!(
            t2.method_hint("getTableNames").unwrap(),
            "getTableNames is a Thrift1 (Hbase) method; this port serves Thrift2 (THBaseService); Thrift1 is on 127.0.0.1:9090"
        );
        // shared names and unknown names are the processor's business
        assert_eq!(t2.method_hint("get"), None);
        assert_eq!(t2.method_hint("noSuchMethod"), None);
        let t1 = WrongPort::new(
            Idl::Thrift1,
            Ports {
                thrift2: None,
                ..ports
            },
        );
        assert_eq!(
            t1.method_hint("tableExists").unwrap(),
            "tableExists is a Thrift2 (THBaseService) method; this port serves Thrift1 (Hbase); this server's Thrift2 gateway is off (start it with --thrift2-addr)"
        );
        assert!(t1.browser_hint().contains("http://db1:8080/"));
    }
}
