//! The gRPC edge: the only module that names wire types or builds statuses. Each call reads
//! its request into domain values, hands them to a service, and writes the answer back;
//! errors become statuses in [`errors`].

pub mod auth;
mod convert;
mod deep;
mod errors;
#[cfg(test)]
mod limits;
mod quote;
pub mod roles;
mod tunes;
pub mod untrusted;
pub mod watches;

use std::sync::Arc;

use pentago::{Adjudication, NamedPlayer, OpeningSource, Position, TimeLimit, UctConfig};
use pentagrid_proto::v2::coordinator_server::{Coordinator as CoordinatorApi, CoordinatorServer};
use pentagrid_proto::{
    MAX_MESSAGE_BYTES, Outcome, Task, book_tables_to_wire, export_row_to_wire, match_state_of_wire,
    puzzle_filter_of_wire, v2,
};
use pentagrid_rating::Sprt;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

use auth::{Credentials, Guarded};
use errors::{OrStatus, ToStatus, invalid};
use pentagrid_coordinator::builder::BuildSpec;
use pentagrid_coordinator::coordinator::Coordinator;
use pentagrid_coordinator::identity::{ResultId, Session, WorkerId, WorkerKey};
use pentagrid_coordinator::ingest::{Submission, Submitted};
use pentagrid_coordinator::jobs::engines::check_engines;
use pentagrid_coordinator::jobs::{DEFAULT_WORKERS_PAGE, JobError, WorkerPage};
use pentagrid_coordinator::matches::{
    GamesPageRequest, MAX_LISTED_MATCHES, MatchSpec, TournamentEntry,
};
use pentagrid_coordinator::puzzles::{MAX_PUZZLES_PAGE, MineRequest, PuzzleCursor, PuzzleQuery};
use pentagrid_coordinator::tunes::MAX_LISTED_TUNES;
use quote::{QUOTED_BYTES, bounded};

/// The gRPC service for `coordinator`, behind authentication and roles (`credentials`) and
/// message limits.
pub(crate) fn grpc_service(
    coordinator: Arc<Coordinator>,
    credentials: Credentials,
) -> Guarded<CoordinatorServer<Service>> {
    let server = CoordinatorServer::new(Service::new(coordinator))
        .max_decoding_message_size(MAX_MESSAGE_BYTES)
        .max_encoding_message_size(MAX_MESSAGE_BYTES);
    Guarded::new(server, credentials)
}

/// The tonic service over the coordinator's services.
#[derive(Clone)]
pub struct Service {
    coordinator: Arc<Coordinator>,
    /// The job watches open, by credential.
    watches: watches::WatchLimits,
}

impl Service {
    /// A service for `coordinator`.
    #[must_use]
    pub fn new(coordinator: Arc<Coordinator>) -> Service {
        Service {
            coordinator,
            watches: watches::WatchLimits::default(),
        }
    }
}

impl Service {
    /// The worker a worker call names, once its session proves the caller is that worker.
    fn worker(&self, worker_id: &str, session: &str) -> Result<WorkerId, Status> {
        let worker = WorkerId::parse(worker_id).or_status()?;
        self.coordinator
            .jobs
            .authenticate(&worker, &Session::presented(session))
            .or_status()?;
        Ok(worker)
    }
}

/// `text` read as a `T` by the workspace's one field parser, refused as an invalid argument.
fn parse<T: std::str::FromStr>(what: &'static str, text: &str) -> Result<T, Status>
where
    T::Err: std::fmt::Display,
{
    pentagrid_model::parse_field(what, text).map_err(|e| invalid(e.to_string()))
}

/// The user the caller's token names (put on the request by authentication, never read from
/// the request's fields); empty for a token naming no user.
fn owner_of<T>(request: &Request<T>) -> String {
    request
        .extensions()
        .get::<auth::User>()
        .map(|user| user.0.to_string())
        .unwrap_or_default()
}

fn tasks(specs: &[v2::JobSpec]) -> Result<Vec<Task>, Status> {
    specs
        .iter()
        .enumerate()
        .map(|(i, spec)| {
            Task::try_from(spec).map_err(|e| invalid(format!("job {}: {}", i + 1, e.0)))
        })
        .collect()
}

type Answer<T> = Result<Response<T>, Status>;

/// Updates a watch may run ahead of a slow reader before it waits for it.
const WATCH_BUFFER: usize = 4;

/// Bytes of a backup file per message: far below the message cap, large enough that a
/// gigabyte is a few thousand messages.
const BACKUP_CHUNK_BYTES: usize = 256 * 1024;

/// Sends the backup `file` in chunks until it ends or the caller hangs up; reads go through
/// tokio's file, which runs them on the blocking pool.
async fn stream_backup(
    file: std::fs::File,
    sender: tokio::sync::mpsc::Sender<Result<v2::BackupChunk, Status>>,
) {
    use tokio::io::AsyncReadExt;
    let mut file = tokio::fs::File::from_std(file);
    loop {
        let mut data = Vec::with_capacity(BACKUP_CHUNK_BYTES);
        let read = (&mut file)
            .take(BACKUP_CHUNK_BYTES as u64)
            .read_to_end(&mut data)
            .await;
        let message = match read {
            Ok(0) => return,
            Ok(_) => Ok(v2::BackupChunk { data }),
            Err(source) => {
                let context = "reading the backup's temporary file".to_owned();
                Err(pentagrid_store::backup::BackupError::Io { context, source }.to_status())
            }
        };
        let failed = message.is_err();
        if sender.send(message).await.is_err() || failed {
            return;
        }
    }
}

#[tonic::async_trait]
impl CoordinatorApi for Service {
    type WatchJobsStream = ReceiverStream<Result<v2::JobsUpdate, Status>>;
    type BackupStream = ReceiverStream<Result<v2::BackupChunk, Status>>;

    async fn backup(&self, _request: Request<v2::BackupRequest>) -> Answer<Self::BackupStream> {
        let snapshot = self.coordinator.backup().await.or_status()?;
        let (sender, receiver) = tokio::sync::mpsc::channel(WATCH_BUFFER);
        // The file has no name: it is gone once this task drops it.
        tokio::spawn(stream_backup(snapshot.file, sender));
        Ok(Response::new(ReceiverStream::new(receiver)))
    }

    async fn watch_jobs(
        &self,
        request: Request<v2::WatchJobsRequest>,
    ) -> Answer<Self::WatchJobsStream> {
        // Authentication put the caller's grant on the request.
        let grant = request.extensions().get::<roles::Grant>().copied();
        let slot = self.watches.take(grant)?;
        let mut watch = self
            .coordinator
            .jobs
            .watch(&request.get_ref().job_ids)
            .or_status()?;
        let (sender, receiver) = tokio::sync::mpsc::channel(WATCH_BUFFER);
        tokio::spawn(async move {
            // Held while the watch runs: its end gives the slot back.
            let _slot = slot;
            loop {
                let update = tokio::select! {
                    update = watch.next() => update,
                    // The caller hung up: stop watching.
                    () = sender.closed() => return,
                };
                let Some(update) = update else { return };
                let message = update.map(convert::jobs_update).or_status();
                if sender.send(message).await.is_err() {
                    return;
                }
            }
        });
        Ok(Response::new(ReceiverStream::new(receiver)))
    }

    async fn hello(&self, request: Request<v2::HelloRequest>) -> Answer<v2::HelloResponse> {
        let r = request.get_ref();
        let engines = check_engines(
            r.engines
                .iter()
                .map(|e| (e.name.as_str(), e.version.as_str())),
        )
        .map_err(JobError::from)
        .or_status()?;
        let key = WorkerKey::parse(&r.worker_key).map_err(|e| invalid(e.to_string()))?;
        let (terms, session) = self
            .coordinator
            .jobs
            .hello_with_engines(
                &WorkerId::parse(&r.worker_id).or_status()?,
                &r.name,
                r.threads,
                engines,
                key,
            )
            .or_status()?;
        Ok(Response::new(v2::HelloResponse {
            lease_seconds: terms.lease.as_secs().max(1) as u32,
            heartbeat_seconds: terms.heartbeat.as_secs().max(1) as u32,
            session: session.reveal().to_owned(),
            reference_speed: terms.reference_speed,
        }))
    }

    async fn lease(&self, request: Request<v2::LeaseRequest>) -> Answer<v2::LeaseResponse> {
        let r = request.get_ref();
        let worker = self.worker(&r.worker_id, &r.session)?;
        let jobs = self
            .coordinator
            .jobs
            .lease(&worker, r.max_jobs)
            .or_status()?;
        Ok(Response::new(v2::LeaseResponse {
            jobs: jobs.into_iter().map(convert::job).collect(),
        }))
    }

    async fn heartbeat(
        &self,
        request: Request<v2::HeartbeatRequest>,
    ) -> Answer<v2::HeartbeatResponse> {
        let r = request.get_ref();
        let worker = self.worker(&r.worker_id, &r.session)?;
        let lost_lease_ids = self
            .coordinator
            .jobs
            .heartbeat(&worker, &r.lease_ids)
            .or_status()?;
        Ok(Response::new(v2::HeartbeatResponse { lost_lease_ids }))
    }

    async fn submit(&self, request: Request<v2::SubmitRequest>) -> Answer<v2::SubmitResponse> {
        let r = request.into_inner();
        let wire = r
            .result
            .as_ref()
            .ok_or_else(|| invalid("the submission has no result"))?;
        let authenticated = self.worker(&r.worker_id, &r.session);
        if let v2::submit_request::Result::Failure(failure) = wire {
            let worker = authenticated?;
            self.coordinator
                .jobs
                .report_failure(&worker, r.job_id, r.lease_id, &failure.message)
                .await
                .or_status()?;
            return Ok(Response::new(v2::SubmitResponse {
                outcome: v2::SubmitOutcome::FailureRecorded as i32,
            }));
        }
        let outcome = Outcome::try_from(wire).map_err(|e| invalid(e.0))?;
        let ids = authenticated
            .and_then(|worker| Ok((worker, ResultId::parse(&r.result_id).or_status()?)));
        let (worker_id, result_id) =
            ids.inspect_err(|_| self.coordinator.ingest.count_malformed())?;
        let submission = Submission {
            worker_id,
            job_id: r.job_id,
            lease_id: r.lease_id,
            result_id,
            outcome,
        };
        let outcome = match self
            .coordinator
            .ingest
            .submit(&submission)
            .await
            .or_status()?
        {
            Submitted::Applied => v2::SubmitOutcome::Applied,
            Submitted::Duplicate => v2::SubmitOutcome::Duplicate,
        };
        Ok(Response::new(v2::SubmitResponse {
            outcome: outcome as i32,
        }))
    }

    async fn return_leases(
        &self,
        request: Request<v2::ReturnLeasesRequest>,
    ) -> Answer<v2::ReturnLeasesResponse> {
        let r = request.get_ref();
        let worker = self.worker(&r.worker_id, &r.session)?;
        let returned = self
            .coordinator
            .jobs
            .return_leases(&worker, &r.lease_ids)
            .or_status()?;
        Ok(Response::new(v2::ReturnLeasesResponse {
            returned: returned as u32,
        }))
    }

    async fn submit_jobs(
        &self,
        request: Request<v2::SubmitJobsRequest>,
    ) -> Answer<v2::SubmitJobsResponse> {
        let specs = &request.get_ref().jobs;
        if specs.len() > pentagrid_coordinator::jobs::MAX_JOBS_PER_SUBMISSION {
            return Err(
                pentagrid_coordinator::jobs::JobError::TooManyJobs(specs.len()).to_status(),
            );
        }
        let job_ids = self
            .coordinator
            .jobs
            .submit(tasks(specs)?)
            .await
            .or_status()?;
        Ok(Response::new(v2::SubmitJobsResponse { job_ids }))
    }

    async fn cancel_jobs(
        &self,
        request: Request<v2::CancelJobsRequest>,
    ) -> Answer<v2::CancelJobsResponse> {
        let outcomes = self
            .coordinator
            .jobs
            .cancel_each(&request.get_ref().job_ids)
            .await
            .or_status()?;
        Ok(Response::new(convert::cancel_jobs_response(&outcomes)))
    }

    async fn status(&self, request: Request<v2::StatusRequest>) -> Answer<v2::StatusResponse> {
        let r = request.get_ref();
        let page = WorkerPage {
            after: convert::worker_cursor(&r.workers_after)?,
            limit: match r.workers_limit {
                0 => DEFAULT_WORKERS_PAGE,
                n => n as usize,
            },
        };
        Ok(Response::new(convert::status(
            self.coordinator.status_page(&page).or_status()?,
        )))
    }

    async fn book_show(
        &self,
        request: Request<v2::BookShowRequest>,
    ) -> Answer<v2::BookShowResponse> {
        let position: Position = parse("position", &request.get_ref().position)?;
        let view = self.coordinator.book.show(&position).or_status()?;
        Ok(Response::new(book_tables_to_wire(view)))
    }

    async fn create_match(
        &self,
        request: Request<v2::CreateMatchRequest>,
    ) -> Answer<v2::CreateMatchResponse> {
        let r = request.get_ref();
        let spec = MatchSpec {
            a: parse::<NamedPlayer>("player A", &r.a)?,
            b: parse::<NamedPlayer>("player B", &r.b)?,
            pairs: r.pairs,
            sprt: match r.sprt.as_str() {
                "" => None,
                text => Some(parse::<Sprt>("SPRT", text)?),
            },
            openings: match r.openings.as_str() {
                "" => OpeningSource::default(),
                text => parse("opening source", text)?,
            },
            opening_positions: r
                .opening_positions
                .iter()
                .map(|text| parse::<Position>("opening position", text))
                .collect::<Result<_, _>>()?,
            adjudicate: match r.adjudicate.as_str() {
                "" => None,
                text => Some(parse::<Adjudication>("adjudication", text)?),
            },
            seed: r.seed,
            accuracy_stones: r.accuracy_stones,
            time: match r.time_limit.as_str() {
                "" => None,
                text => Some(parse::<TimeLimit>("time limit", text)?),
            },
            weight: r.weight.max(1),
            owner: owner_of(&request),
            tune: 0,
            tournament: match (r.tournament_kind.as_str(), r.tournament_id) {
                ("", 0) => None,
                ("", _) => {
                    return Err(invalid("tournament_id needs a tournament_kind"));
                }
                (kind, 0) => Some(TournamentEntry::First(parse("tournament kind", kind)?)),
                (kind, id) => Some(TournamentEntry::Join {
                    id,
                    kind: parse("tournament kind", kind)?,
                }),
            },
        };
        let match_id = self.coordinator.matches.create(&spec).await.or_status()?;
        Ok(Response::new(v2::CreateMatchResponse { match_id }))
    }

    async fn match_status(
        &self,
        request: Request<v2::MatchStatusRequest>,
    ) -> Answer<v2::MatchStatusResponse> {
        let r = request.get_ref();
        let games = r.include_games.then_some(GamesPageRequest {
            from_pair: r.games_from_pair,
            pairs: u64::from(r.games_page_pairs),
        });
        let report = self
            .coordinator
            .matches
            .status(r.match_id, games)
            .or_status()?;
        Ok(Response::new(convert::match_report(report)))
    }

    async fn list_matches(
        &self,
        request: Request<v2::ListMatchesRequest>,
    ) -> Answer<v2::ListMatchesResponse> {
        let r = request.get_ref();
        let limit = match r.limit {
            0 => MAX_LISTED_MATCHES,
            n => n.min(MAX_LISTED_MATCHES),
        };
        let states = r
            .states
            .iter()
            .map(|&number| {
                match_state_of_wire(number)
                    .ok_or_else(|| invalid(format!("unknown match state {number} in states")))
            })
            .collect::<Result<Vec<_>, Status>>()?;
        let reports = self
            .coordinator
            .matches
            .list(r.before_id, limit as usize, &states)
            .or_status()?;
        let next_before_id = if reports.len() == limit as usize {
            reports.last().map_or(0, |report| report.id)
        } else {
            0
        };
        Ok(Response::new(v2::ListMatchesResponse {
            matches: reports.into_iter().map(convert::match_report).collect(),
            next_before_id,
        }))
    }

    async fn stop_match(
        &self,
        request: Request<v2::StopMatchRequest>,
    ) -> Answer<v2::StopMatchResponse> {
        let stopped = self
            .coordinator
            .matches
            .stop(request.get_ref().match_id, &owner_of(&request))
            .await
            .or_status()?;
        Ok(Response::new(v2::StopMatchResponse {
            r#match: Some(convert::match_report(stopped.report)),
            cancelled_pairs: stopped.cancelled_pairs,
        }))
    }

    async fn generate_puzzles(
        &self,
        request: Request<v2::GeneratePuzzlesRequest>,
    ) -> Answer<v2::GeneratePuzzlesResponse> {
        let r = request.get_ref();
        let mined = self
            .coordinator
            .puzzles
            .generate(&MineRequest {
                candidates: r.candidates,
                max_moves: r.max_moves,
                min_moves: r.min_moves,
                min_stones: r.min_stones,
                random_games: r.random_games,
                seed: r.seed,
            })
            .await
            .or_status()?;
        Ok(Response::new(v2::GeneratePuzzlesResponse {
            queued: mined.queued,
            job_ids: mined.job_ids,
        }))
    }

    async fn list_puzzles(
        &self,
        request: Request<v2::ListPuzzlesRequest>,
    ) -> Answer<v2::ListPuzzlesResponse> {
        let r = request.get_ref();
        let filter = puzzle_filter_of_wire(r).map_err(|e| invalid(e.0))?;
        let listing = self
            .coordinator
            .puzzles
            .list(&PuzzleQuery {
                filter,
                page: u64::from(r.page),
                cursor: match r.cursor.as_str() {
                    "" => None,
                    text => Some(parse::<PuzzleCursor>("cursor", text)?),
                },
                // The older `limit` still sizes the page when `page_size` is not given; it was a
                // bound, not a page, so it is clamped rather than refused.
                page_size: match r.page_size {
                    0 => u64::from(r.limit).min(MAX_PUZZLES_PAGE),
                    size => u64::from(size),
                },
            })
            .or_status()?;
        Ok(Response::new(convert::puzzle_listing(listing)))
    }

    async fn get_puzzle(
        &self,
        request: Request<v2::GetPuzzleRequest>,
    ) -> Answer<v2::GetPuzzleResponse> {
        let key = request.get_ref().key;
        let puzzle_json = self
            .coordinator
            .puzzles
            .get(key)
            .or_status()?
            .ok_or_else(|| errors::not_found_message(format!("no puzzle {key:016x}")))?;
        Ok(Response::new(v2::GetPuzzleResponse { puzzle_json }))
    }

    async fn start_build(
        &self,
        request: Request<v2::StartBuildRequest>,
    ) -> Answer<v2::StartBuildResponse> {
        let r = request.get_ref();
        if r.roots.len() > pentagrid_coordinator::builder::MAX_BUILD_ROOTS {
            return Err(invalid("a build has 1 to 10000 roots"));
        }
        let config: UctConfig = r.config.parse().map_err(|e| {
            let config = bounded(&r.config, QUOTED_BYTES);
            invalid(format!("bad engine config {config}: {e}"))
        })?;
        let roots = r
            .roots
            .iter()
            .map(|text| {
                text.parse::<Position>()
                    .map_err(|e| invalid(format!("bad root {}: {e}", bounded(text, QUOTED_BYTES))))
            })
            .collect::<Result<_, _>>()?;
        let spec = BuildSpec {
            roots,
            depth: r.depth,
            max_positions: r.max_positions,
            budget: r.budget,
            playouts_per_position: r.playouts_per_position,
            config,
            solve_stones: r.solve_stones,
            deep_from: r.deep_from,
            deep_window: r.deep_window,
            deep_leaf_stones: r.deep_leaf_stones,
        };
        let build_id = self.coordinator.builder.start(&spec).await.or_status()?;
        Ok(Response::new(v2::StartBuildResponse { build_id }))
    }

    async fn build_status(
        &self,
        request: Request<v2::BuildStatusRequest>,
    ) -> Answer<v2::BuildStatusResponse> {
        let report = self
            .coordinator
            .builder
            .status(request.get_ref().build_id)
            .or_status()?;
        Ok(Response::new(convert::build_report(report)))
    }

    async fn book_export(
        &self,
        request: Request<v2::BookExportRequest>,
    ) -> Answer<v2::BookExportResponse> {
        let r = request.get_ref();
        let page = self
            .coordinator
            .book
            .export(r.from_key, r.limit as usize, r.min_games)
            .await
            .or_status()?;
        Ok(Response::new(v2::BookExportResponse {
            rows: page.rows.iter().map(export_row_to_wire).collect(),
            next_key: page.next_key,
        }))
    }

    async fn book_import(
        &self,
        request: Request<v2::BookImportRequest>,
    ) -> Answer<v2::BookImportResponse> {
        let wire = &request.get_ref().rows;
        if wire.len() > pentagrid_coordinator::book::MAX_IMPORT_ROWS {
            let (max, asked) = (pentagrid_coordinator::book::MAX_IMPORT_ROWS, wire.len());
            return Err(
                pentagrid_coordinator::book::BookError::TooMany("rows", max, asked).to_status(),
            );
        }
        let rows = convert::import_rows(wire)?;
        let mark = convert::import_mark(request.get_ref())?;
        let imported = self.coordinator.book.import(rows, mark).await.or_status()?;
        Ok(Response::new(v2::BookImportResponse {
            rows: imported as u64,
        }))
    }

    async fn get_games(
        &self,
        request: Request<v2::GetGamesRequest>,
    ) -> Answer<v2::GetGamesResponse> {
        let r = request.get_ref();
        let page = self
            .coordinator
            .book
            .games(&r.job_ids, r.offset, u64::from(r.page_size))
            .or_status()?;
        Ok(Response::new(v2::GetGamesResponse {
            games: page
                .games
                .into_iter()
                .map(|(job_id, game)| convert::game(job_id, game))
                .collect(),
            next_offset: page.next_offset,
        }))
    }

    async fn start_deep_solve(
        &self,
        request: Request<v2::StartDeepSolveRequest>,
    ) -> Answer<v2::StartDeepSolveResponse> {
        let r = request.get_ref();
        let position: Position = parse("position", &r.position)?;
        let solve_id = self
            .coordinator
            .deep
            .start(&position, r.batch, r.leaf_stones)
            .await
            .or_status()?;
        Ok(Response::new(v2::StartDeepSolveResponse { solve_id }))
    }

    async fn deep_solve_status(
        &self,
        request: Request<v2::DeepSolveStatusRequest>,
    ) -> Answer<v2::DeepSolveStatusResponse> {
        let report = self
            .coordinator
            .deep
            .status(request.get_ref().solve_id)
            .or_status()?;
        Ok(Response::new(deep::report(&report)))
    }

    async fn list_deep_solves(
        &self,
        _request: Request<v2::ListDeepSolvesRequest>,
    ) -> Answer<v2::ListDeepSolvesResponse> {
        let reports = self.coordinator.deep.list().or_status()?;
        Ok(Response::new(v2::ListDeepSolvesResponse {
            solves: reports.iter().map(deep::report).collect(),
        }))
    }

    async fn deep_leaves(
        &self,
        request: Request<v2::DeepLeavesRequest>,
    ) -> Answer<v2::DeepLeavesResponse> {
        let r = request.get_ref();
        let limit = deep::page_limit(r.limit);
        let leaves = self
            .coordinator
            .deep
            .leaves(r.after_key, limit)
            .or_status()?;
        Ok(Response::new(deep::leaves_page(&leaves, limit)))
    }

    async fn create_tune(
        &self,
        request: Request<v2::CreateTuneRequest>,
    ) -> Answer<v2::CreateTuneResponse> {
        let spec = tunes::spec(request.get_ref(), owner_of(&request))?;
        let tune_id = self.coordinator.tunes.create(&spec).await.or_status()?;
        Ok(Response::new(v2::CreateTuneResponse { tune_id }))
    }

    async fn tune_status(
        &self,
        request: Request<v2::TuneStatusRequest>,
    ) -> Answer<v2::TuneStatusResponse> {
        let r = request.get_ref();
        let steps = r
            .include_steps
            .then_some((r.steps_from, u64::from(r.steps_page)));
        let report = self
            .coordinator
            .tunes
            .status(r.tune_id, steps)
            .or_status()?;
        Ok(Response::new(tunes::report(report)))
    }

    async fn list_tunes(
        &self,
        request: Request<v2::ListTunesRequest>,
    ) -> Answer<v2::ListTunesResponse> {
        let r = request.get_ref();
        let limit = match r.limit {
            0 => MAX_LISTED_TUNES,
            n => n.min(MAX_LISTED_TUNES),
        };
        let reports = self
            .coordinator
            .tunes
            .list(r.before_id, limit as usize)
            .or_status()?;
        let next_before_id = if reports.len() == limit as usize {
            reports.last().map_or(0, |report| report.id)
        } else {
            0
        };
        Ok(Response::new(v2::ListTunesResponse {
            tunes: reports.into_iter().map(tunes::report).collect(),
            next_before_id,
        }))
    }

    async fn stop_tune(
        &self,
        request: Request<v2::StopTuneRequest>,
    ) -> Answer<v2::StopTuneResponse> {
        let stopped = self
            .coordinator
            .tunes
            .stop(request.get_ref().tune_id, &owner_of(&request))
            .await
            .or_status()?;
        Ok(Response::new(v2::StopTuneResponse {
            tune: Some(tunes::report(stopped.report)),
            cancelled_pairs: stopped.cancelled_pairs,
        }))
    }
}
