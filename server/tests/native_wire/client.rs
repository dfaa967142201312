//! ClientService as the client calls it: puts and gets (protobuf cells and KeyValueCodec cell
//! blocks), hbase:meta reads, and a region split under a scanner.

use bytes::Bytes;
use prost::Message;
use redbase::native::pb;

use crate::native_support::*;

#[test]
fn put_and_get_through_client_service() {
    let server = Server::start(1 << 20);
    create_table(server.addr, "t");
    // Protobuf cells (no codec).
    let mut client = Conn::open(server.addr, "ClientService", false);
    let low = locate(&mut client, "t", "apple");
    let high = locate(&mut client, "t", "zebra");
    assert_ne!(low, high, "split at m: two regions");
    let req = pb::MutateRequest {
        region: region(low.clone()),
        mutation: put("apple", "red"),
        ..Default::default()
    };
    let resp: pb::MutateResponse = client.call("Mutate", &req);
    assert_eq!(resp.processed, Some(true));
    let get = pb::GetRequest {
        region: region(low.clone()),
        get: pb::Get {
            row: Bytes::from_static(b"apple"),
            ..Default::default()
        },
    };
    let got: pb::GetResponse = client.call("Get", &get);
    let cells = got.result.unwrap().cell;
    assert_eq!(cells.len(), 1);
    assert_eq!(cells[0].value.as_deref(), Some(&b"red"[..]));
    // A row outside the region named: the client must look the region up again.
    let wrong = pb::MutateRequest {
        region: region(low.clone()),
        mutation: put("zebra", "striped"),
        ..Default::default()
    };
    let r = client.call_raw("Mutate", &wrong.encode_to_vec(), &[]);
    assert_eq!(
        r.exception_class().as_deref(),
        Some("org.apache.hadoop.hbase.NotServingRegionException")
    );

    // Cell blocks (KeyValueCodec): a batched put's cells in the request, a get's in the answer.
    let mut coded = Conn::open(server.addr, "ClientService", true);
    let multi = pb::MultiRequest {
        region_action: vec![pb::RegionAction {
            region: region(high.clone()),
            action: vec![pb::Action {
                index: Some(0),
                mutation: Some(pb::MutationProto {
                    mutate_type: Some(pb::mutation_proto::MutationType::Put as i32),
                    associated_cell_count: Some(1),
                    ..Default::default()
                }),
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let cells = key_value(b"zebra", b"f", b"q", b"striped");
    let r = coded.call_raw("Multi", &multi.encode_to_vec(), &cells);
    assert!(r.header.exception.is_none(), "{:?}", r.header.exception);
    let m = pb::MultiResponse::decode(r.message).unwrap();
    assert!(m.region_action_result[0].result_or_exception[0]
        .exception
        .is_none());
    let get = pb::GetRequest {
        region: region(high),
        get: pb::Get {
            row: Bytes::from_static(b"zebra"),
            ..Default::default()
        },
    };
    let r = coded.call_raw("Get", &get.encode_to_vec(), &[]);
    let result = pb::GetResponse::decode(r.message).unwrap().result.unwrap();
    assert_eq!(result.associated_cell_count, Some(1));
    assert!(result.cell.is_empty());
    let kv = &r.cells[4..];
    assert!(kv.ends_with(b"striped"));
    assert_eq!(
        u32::from_be_bytes(r.cells[..4].try_into().unwrap()) as usize,
        kv.len()
    );
}

#[test]
fn a_split_region_answers_not_serving_and_scanners_span_the_split() {
    let server = Server::start(1 << 20);
    create_table(server.addr, "t");
    let mut c = Conn::open(server.addr, "ClientService", false);
    let low = locate(&mut c, "t", "a");
    for row in ["a", "b", "c", "d", "e", "g", "h", "i"] {
        let req = pb::MutateRequest {
            region: region(low.clone()),
            mutation: put(row, row),
            ..Default::default()
        };
        let _: pb::MutateResponse = c.call("Mutate", &req);
    }
    // A scanner opened before the split reads its region's old range to the end.
    let open = pb::ScanRequest {
        region: Some(region(low.clone())),
        scan: Some(pb::Scan::default()),
        number_of_rows: Some(2),
        ..Default::default()
    };
    let first: pb::ScanResponse = c.call("Scan", &open);
    assert_eq!(first.results.len(), 2);
    assert_eq!(first.more_results_in_region, Some(true));
    let id = first.scanner_id.unwrap();

    server.engine.split_region("t", b"a", Some(b"f")).unwrap();

    let next = pb::ScanRequest {
        scanner_id: Some(id),
        number_of_rows: Some(100),
        next_call_seq: Some(0),
        ..Default::default()
    };
    let rest: pb::ScanResponse = c.call("Scan", &next);
    let rows: Vec<_> = rest
        .results
        .iter()
        .map(|r| r.cell[0].row.clone().unwrap())
        .collect();
    assert_eq!(
        rows,
        ["c", "d", "e", "g", "h", "i"].map(|r| Bytes::from(r.as_bytes()))
    );
    assert_eq!(rest.more_results_in_region, Some(false));
    // The same next again: the scanner closed at its region's end, and a call on a scanner the
    // server closed is answered with nothing (HBase's closedScanners), not an error.
    let again: pb::ScanResponse = c.call("Scan", &next);
    assert!(again.results.is_empty());
    assert_eq!(again.more_results_in_region, None);
    // An id no scanner ever had: UnknownScannerException.
    let unknown = pb::ScanRequest {
        scanner_id: Some(7),
        ..next.clone()
    };
    let r = c.call_raw("Scan", &unknown.encode_to_vec(), &[]);
    assert_eq!(
        r.exception_class().as_deref(),
        Some("org.apache.hadoop.hbase.UnknownScannerException")
    );

    // The old name is gone: NotServingRegionException, then the client finds the new region.
    let get = |name: Bytes, row: &'static [u8]| pb::GetRequest {
        region: region(name),
        get: pb::Get {
            row: Bytes::from_static(row),
            ..Default::default()
        },
    };
    let r = c.call_raw("Get", &get(low.clone(), b"b").encode_to_vec(), &[]);
    assert_eq!(
        r.exception_class().as_deref(),
        Some("org.apache.hadoop.hbase.NotServingRegionException")
    );
    let lower = locate(&mut c, "t", "b");
    let upper = locate(&mut c, "t", "g");
    assert!(lower != low && upper != low && lower != upper);
    let got: pb::GetResponse = c.call("Get", &get(upper.clone(), b"g"));
    assert_eq!(
        got.result.unwrap().cell[0].value.as_deref(),
        Some(&b"g"[..])
    );
    // A next_call_seq out of order closes the scanner.
    let open = pb::ScanRequest {
        region: Some(region(upper)),
        scan: Some(pb::Scan::default()),
        number_of_rows: Some(1),
        ..Default::default()
    };
    let s: pb::ScanResponse = c.call("Scan", &open);
    let skipped = pb::ScanRequest {
        scanner_id: s.scanner_id,
        number_of_rows: Some(1),
        next_call_seq: Some(5),
        ..Default::default()
    };
    let r = c.call_raw("Scan", &skipped.encode_to_vec(), &[]);
    assert_eq!(
        r.exception_class().as_deref(),
        Some("org.apache.hadoop.hbase.exceptions.OutOfOrderScannerNextException")
    );
}
