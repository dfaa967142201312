//! ClientService's Get, Mutate and Multi: each names a region; the row must still be in it
//! (a region that split or moved answers NotServingRegionException, and the client looks it up
//! again). hbase:meta answers reads from the catalog and refuses writes.

use bytes::Bytes;

use crate::engine::{Get, RegionMeta, RowCheck, RowMutation};
use crate::gateway::Need;

use super::cellblock::{self, BlockCell};
use super::check;
use super::convert::{self, CellOut, Mutation, ReadParts};
use super::errors::{class, NativeError};
use super::meta::{self, MetaRange};
use super::pb;
use super::regions::{self, Target};
use super::Native;

/// The row must lie in the region the client addressed.
fn check_row(region: &RegionMeta, row: &[u8]) -> Result<(), NativeError> {
    if region.contains(row) {
        Ok(())
    } else {
        Err(NativeError::not_serving(&regions::name_of(region)))
    }
}

fn meta_is_read_only() -> NativeError {
    NativeError::bad_request(
        "hbase:meta is made from redbase's catalog and cannot be written: use the Admin API",
    )
}

fn get_result(
    ctx: &Native,
    target: &Target,
    g: &pb::Get,
    out: &mut CellOut,
) -> Result<pb::Result, NativeError> {
    if g.closest_row_before == Some(true) {
        return Err(NativeError::bad_request(
            "closest_row_before is not supported: use a reversed scan",
        ));
    }
    let exists_only = g.existence_only == Some(true);
    let row = match target {
        Target::Meta => {
            let families = g.column.iter().map(|c| c.family.to_vec()).collect();
            meta::rows(&ctx.engine, &ctx.server, &MetaRange::row(&g.row, families))?
                .into_iter()
                .next()
        }
        Target::Region(region) => {
            check_row(region, &g.row)?;
            ctx.access.check(Need::Read(&region.table))?;
            let options = convert::read_options(ReadParts {
                columns: &g.column,
                time_range: g.time_range.as_ref(),
                cf_time_ranges: &g.cf_time_range,
                max_versions: g.max_versions,
                store_limit: g.store_limit,
                store_offset: g.store_offset,
                filter: g.filter.as_ref(),
            })?;
            ctx.engine
                .get(&region.table, Get::with(&g.row, options))?
                .filter(|r| !r.is_empty())
        }
    };
    if exists_only {
        return Ok(pb::Result {
            exists: Some(row.is_some()),
            ..Default::default()
        });
    }
    Ok(match row {
        Some(r) => out.row(&r),
        None => out.result(std::iter::empty()),
    })
}

pub fn get(
    ctx: &Native,
    req: pb::GetRequest,
    out: &mut CellOut,
) -> Result<pb::GetResponse, NativeError> {
    let target = regions::resolve(&ctx.engine, Some(&req.region))?;
    Ok(pb::GetResponse {
        result: Some(get_result(ctx, &target, &req.get, out)?),
    })
}

/// Applies one mutation; the cells of an increment or append come back when asked for.
fn apply(
    ctx: &Native,
    region: &RegionMeta,
    m: Mutation,
    out: &mut CellOut,
) -> Result<Option<pb::Result>, NativeError> {
    check_row(region, m.row())?;
    let table = region.table.as_str();
    ctx.access.check(Need::Write(table))?;
    match m {
        Mutation::Row(rm) => {
            ctx.engine.mutate_row(table, rm)?;
            Ok(None)
        }
        Mutation::Increment {
            row,
            columns,
            ttl_ms,
            durability,
            return_results,
        } => {
            let cells = ctx
                .engine
                .increment(table, &row, columns, ttl_ms, durability)?;
            Ok(return_results.then(|| out.cells(&cells)))
        }
        Mutation::Append {
            row,
            columns,
            ttl_ms,
            durability,
            return_results,
        } => {
            let cells = ctx
                .engine
                .append(table, &row, columns, ttl_ms, durability)?;
            Ok(return_results.then(|| out.cells(&cells)))
        }
    }
}

fn block_cells(cells: &Bytes) -> Result<std::vec::IntoIter<BlockCell>, NativeError> {
    Ok(cellblock::decode(cells)?.into_iter())
}

pub fn mutate(
    ctx: &Native,
    req: pb::MutateRequest,
    cells: &Bytes,
    out: &mut CellOut,
) -> Result<pb::MutateResponse, NativeError> {
    let target = regions::resolve(&ctx.engine, Some(&req.region))?;
    let Target::Region(region) = target else {
        return Err(meta_is_read_only());
    };
    let m = convert::mutation(&req.mutation, &mut block_cells(cells)?)?;
    if let Some(c) = &req.condition {
        let check = check::row_check(c)?;
        if c.row.as_ref() != m.row() {
            return Err(NativeError::bad_request(
                "the condition's row differs from the mutation's",
            ));
        }
        let row = m.row().to_vec();
        let (processed, result) = check::run(ctx, &region, &row, check, vec![m], out)?;
        return Ok(pb::MutateResponse {
            result,
            processed: Some(processed),
        });
    }
    let is_row = matches!(m, Mutation::Row(_));
    let result = apply(ctx, &region, m, out)?;
    Ok(pb::MutateResponse {
        result,
        processed: is_row.then_some(true),
    })
}

fn exception(e: &NativeError) -> pb::NameBytesPair {
    pb::NameBytesPair {
        name: e.class.to_string(),
        value: Some(e.message.clone().into_bytes().into()),
    }
}

fn answer(index: Option<u32>, r: Result<Option<pb::Result>, NativeError>) -> pb::ResultOrException {
    match r {
        Ok(result) => pb::ResultOrException {
            index,
            result: Some(result.unwrap_or_default()),
            exception: None,
        },
        Err(e) => pb::ResultOrException {
            index,
            result: None,
            exception: Some(exception(&e)),
        },
    }
}

/// One region's actions (its mutations already decoded, in order, with their cells).
/// Answers whether the batch ran (atomic and conditional batches) and the actions' answers.
fn region_actions(
    ctx: &Native,
    ra: &pb::RegionAction,
    condition: Option<&pb::Condition>,
    mutations: Vec<Option<Result<Mutation, NativeError>>>,
    out: &mut CellOut,
) -> Result<(Option<bool>, Vec<pb::ResultOrException>), NativeError> {
    let target = regions::resolve(&ctx.engine, Some(&ra.region))?;
    let region = match &target {
        Target::Region(r) => Some(r),
        Target::Meta => None,
    };
    if condition.is_some() || ra.atomic == Some(true) {
        let region = region.ok_or_else(meta_is_read_only)?;
        let mut ms = Vec::with_capacity(mutations.len());
        for m in mutations {
            ms.push(m.ok_or_else(|| {
                NativeError::bad_request(
                    "an atomic or conditional batch takes puts, deletes, increments and appends only",
                )
            })??);
        }
        let Some(row) = ms.first().map(|m| m.row().to_vec()) else {
            return Ok((condition.is_none().then_some(true), Vec::new()));
        };
        let plain = ms.iter().all(|m| matches!(m, Mutation::Row(_)));
        let (passed, first) = match condition {
            Some(c) => {
                if c.row.as_ref() != row.as_slice() {
                    return Err(NativeError::bad_request(
                        "the condition's row differs from the mutations'",
                    ));
                }
                check::run(ctx, region, &row, check::row_check(c)?, ms, out)?
            }
            // Puts and deletes alone go to the engine as one row mutation.
            None if plain => {
                let mut whole: Option<RowMutation> = None;
                for rm in ms.into_iter().filter_map(|m| match m {
                    Mutation::Row(rm) => Some(rm),
                    _ => None,
                }) {
                    match whole.as_mut() {
                        None => whole = Some(rm),
                        Some(w) if w.row == rm.row => w.ops.extend(rm.ops),
                        Some(_) => {
                            return Err(NativeError::bad_request(
                                "an atomic batch's mutations must all be of one row",
                            ))
                        }
                    }
                }
                let whole = whole.unwrap_or_else(|| RowMutation::new(&row));
                apply(ctx, region, Mutation::Row(whole), out)?;
                (true, None)
            }
            None => check::run(ctx, region, &row, RowCheck::Always, ms, out)?,
        };
        // HBase numbers these answers by position, not by the actions' indexes.
        return Ok((Some(passed), check::answers(ra.action.len(), first)));
    }
    // Puts and deletes in a row go to the engine as one batch (each region commits its rows
    // once), the rest one by one, answers in the actions' order.
    let mut results: Vec<Option<pb::ResultOrException>> = vec![None; ra.action.len()];
    let mut batch: Vec<(usize, RowMutation)> = Vec::new();
    for (i, (a, m)) in ra.action.iter().zip(mutations).enumerate() {
        let r = if let Some(g) = &a.get {
            flush(ctx, region, &mut batch, ra, &mut results);
            if out.bytes() > ctx.limits.max_response {
                Err(NativeError::retry(
                    class::MULTI_ACTION_RESULT_TOO_LARGE,
                    "this batch's answer is already at the size bound: send the rest again",
                ))
            } else {
                get_result(ctx, &target, g, out).map(Some)
            }
        } else if let Some(m) = m {
            match (m, region) {
                (Ok(Mutation::Row(rm)), Some(region)) => {
                    match check_row(region, &rm.row)
                        .and_then(|()| Ok(ctx.access.check(Need::Write(&region.table))?))
                    {
                        Ok(()) => {
                            batch.push((i, rm));
                            continue;
                        }
                        Err(e) => Err(e),
                    }
                }
                (Ok(m), Some(region)) => {
                    flush(ctx, Some(region), &mut batch, ra, &mut results);
                    apply(ctx, region, m, out)
                }
                (Ok(_), None) => Err(meta_is_read_only()),
                (Err(e), _) => Err(e),
            }
        } else {
            Err(NativeError::bad_request(
                "coprocessor calls are not supported by redbase",
            ))
        };
        results[i] = Some(answer(a.index, r));
    }
    flush(ctx, region, &mut batch, ra, &mut results);
    Ok((None, results.into_iter().flatten().collect()))
}

/// Applies the puts and deletes gathered so far as one engine batch.
fn flush(
    ctx: &Native,
    region: Option<&RegionMeta>,
    batch: &mut Vec<(usize, RowMutation)>,
    ra: &pb::RegionAction,
    results: &mut [Option<pb::ResultOrException>],
) {
    let (Some(region), false) = (region, batch.is_empty()) else {
        return;
    };
    let (places, rows): (Vec<usize>, Vec<RowMutation>) = batch.drain(..).unzip();
    let outcomes = ctx.engine.mutate_rows(&region.table, rows);
    for (i, outcome) in places.into_iter().zip(outcomes) {
        let r = outcome.map(|()| None).map_err(NativeError::from);
        results[i] = Some(answer(ra.action[i].index, r));
    }
}

pub fn multi(
    ctx: &Native,
    req: pb::MultiRequest,
    cells: &Bytes,
    out: &mut CellOut,
) -> Result<pb::MultiResponse, NativeError> {
    let mut block = block_cells(cells)?;
    let mut resp = pb::MultiResponse::default();
    for ra in &req.region_action {
        // Every mutation takes its cells from the shared block in order, whatever becomes of
        // its region, so the next region's cells are where they belong.
        let mutations: Vec<Option<Result<Mutation, NativeError>>> = ra
            .action
            .iter()
            .map(|a| {
                a.mutation
                    .as_ref()
                    .map(|m| convert::mutation(m, &mut block))
            })
            .collect();
        // Clients before 2.4 sent one conditional batch's condition on the request.
        let old_style = ra.condition.is_none() && req.condition.is_some();
        let condition = ra.condition.as_ref().or(req.condition.as_ref());
        let result = match region_actions(ctx, ra, condition, mutations, out) {
            Ok((processed, r)) => {
                if ra.atomic == Some(true) || old_style {
                    // HBase's older clients read the whole response's flag.
                    resp.processed = processed;
                }
                pb::RegionActionResult {
                    result_or_exception: r,
                    exception: None,
                    // An atomic or conditional action says whether it ran.
                    processed,
                }
            }
            Err(e) => pb::RegionActionResult {
                result_or_exception: Vec::new(),
                exception: Some(exception(&e)),
                processed: None,
            },
        };
        resp.region_action_result.push(result);
    }
    Ok(resp)
}
