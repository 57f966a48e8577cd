//! The gRPC service: a thin layer that hands each call to [`Coordinator`].

use std::sync::Arc;

use pentagrid_proto::v1;
use pentagrid_proto::v1::coordinator_server::Coordinator as CoordinatorApi;
use tonic::{Request, Response, Status};

use crate::coordinator::Coordinator;

/// The tonic service over shared coordinator state.
#[derive(Clone)]
pub struct Service {
    coordinator: Arc<Coordinator>,
}

impl Service {
    /// A service for `coordinator`.
    #[must_use]
    pub fn new(coordinator: Arc<Coordinator>) -> Service {
        Service { coordinator }
    }
}

#[tonic::async_trait]
impl CoordinatorApi for Service {
    async fn hello(
        &self,
        request: Request<v1::HelloRequest>,
    ) -> Result<Response<v1::HelloResponse>, Status> {
        self.coordinator.hello(request.get_ref()).map(Response::new)
    }

    async fn lease(
        &self,
        request: Request<v1::LeaseRequest>,
    ) -> Result<Response<v1::LeaseResponse>, Status> {
        self.coordinator.lease(request.get_ref()).map(Response::new)
    }

    async fn heartbeat(
        &self,
        request: Request<v1::HeartbeatRequest>,
    ) -> Result<Response<v1::HeartbeatResponse>, Status> {
        self.coordinator
            .heartbeat(request.get_ref())
            .map(Response::new)
    }

    async fn submit(
        &self,
        request: Request<v1::SubmitRequest>,
    ) -> Result<Response<v1::SubmitResponse>, Status> {
        self.coordinator
            .submit(request.get_ref())
            .await
            .map(Response::new)
    }

    async fn return_leases(
        &self,
        request: Request<v1::ReturnLeasesRequest>,
    ) -> Result<Response<v1::ReturnLeasesResponse>, Status> {
        self.coordinator
            .return_leases(request.get_ref())
            .map(Response::new)
    }

    async fn submit_jobs(
        &self,
        request: Request<v1::SubmitJobsRequest>,
    ) -> Result<Response<v1::SubmitJobsResponse>, Status> {
        self.coordinator
            .submit_jobs(request.get_ref())
            .await
            .map(Response::new)
    }

    async fn cancel_jobs(
        &self,
        request: Request<v1::CancelJobsRequest>,
    ) -> Result<Response<v1::CancelJobsResponse>, Status> {
        self.coordinator
            .cancel_jobs(request.get_ref())
            .await
            .map(Response::new)
    }

    async fn status(
        &self,
        _request: Request<v1::StatusRequest>,
    ) -> Result<Response<v1::StatusResponse>, Status> {
        self.coordinator.status().map(Response::new)
    }

    async fn book_show(
        &self,
        request: Request<v1::BookShowRequest>,
    ) -> Result<Response<v1::BookShowResponse>, Status> {
        self.coordinator
            .book_show(request.get_ref())
            .map(Response::new)
    }

    async fn create_match(
        &self,
        request: Request<v1::CreateMatchRequest>,
    ) -> Result<Response<v1::CreateMatchResponse>, Status> {
        self.coordinator
            .create_match(request.get_ref())
            .await
            .map(Response::new)
    }

    async fn generate_puzzles(
        &self,
        request: Request<v1::GeneratePuzzlesRequest>,
    ) -> Result<Response<v1::GeneratePuzzlesResponse>, Status> {
        self.coordinator
            .generate_puzzles(request.get_ref())
            .await
            .map(Response::new)
    }

    async fn list_puzzles(
        &self,
        request: Request<v1::ListPuzzlesRequest>,
    ) -> Result<Response<v1::ListPuzzlesResponse>, Status> {
        self.coordinator
            .list_puzzles(request.get_ref())
            .map(Response::new)
    }

    async fn start_build(
        &self,
        request: Request<v1::StartBuildRequest>,
    ) -> Result<Response<v1::StartBuildResponse>, Status> {
        self.coordinator
            .start_build(request.get_ref())
            .await
            .map(Response::new)
    }

    async fn build_status(
        &self,
        request: Request<v1::BuildStatusRequest>,
    ) -> Result<Response<v1::BuildStatusResponse>, Status> {
        self.coordinator
            .build_status(request.get_ref())
            .map(Response::new)
    }

    async fn book_export(
        &self,
        request: Request<v1::BookExportRequest>,
    ) -> Result<Response<v1::BookExportResponse>, Status> {
        self.coordinator
            .book_export(request.get_ref())
            .map(Response::new)
    }

    async fn book_import(
        &self,
        request: Request<v1::BookImportRequest>,
    ) -> Result<Response<v1::BookImportResponse>, Status> {
        self.coordinator
            .book_import(request.get_ref())
            .await
            .map(Response::new)
    }

    async fn get_games(
        &self,
        request: Request<v1::GetGamesRequest>,
    ) -> Result<Response<v1::GetGamesResponse>, Status> {
        self.coordinator
            .get_games(request.get_ref())
            .map(Response::new)
    }

    async fn match_status(
        &self,
        request: Request<v1::MatchStatusRequest>,
    ) -> Result<Response<v1::MatchReport>, Status> {
        self.coordinator
            .match_status(request.get_ref())
            .map(Response::new)
    }
}
