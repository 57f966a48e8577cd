//! The running matches on the cluster page, over HTTP against a cluster of its own without
//! workers (so its matches stay running): each with its progress, leases and weight; a stopped
//! match leaves the table.

use pentagrid_coordinator::CoordinatorSettings;
use pentagrid_proto::v2;
use pentagrid_tests::TestCluster;

use crate::support::{get, start_explorer};

#[tokio::test]
async fn the_cluster_page_lists_the_running_matches_with_progress_and_weight() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let base = start_explorer(&cluster, pentagrid_web::BookCacheSettings::default()).await;
    let mut client = cluster.client();
    let mut ids = Vec::new();
    for (name, weight) in [("heavy", 5), ("light", 2)] {
        let created = client
            .create_match(v2::CreateMatchRequest {
                a: format!("{name}=random"),
                b: "random".into(),
                pairs: 3,
                weight,
                ..v2::CreateMatchRequest::default()
            })
            .await
            .expect("create")
            .into_inner();
        ids.push(created.match_id);
    }
    client
        .stop_match(v2::StopMatchRequest { match_id: ids[1] })
        .await
        .expect("stop");
    let answer = get(&format!("{base}/api/v1/cluster")).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let running = answer.json()["matches"].clone();
    assert_eq!(
        running,
        serde_json::json!([{
            "id": ids[0], "a": "heavy", "b": "random", "state": "running", "pairs": 3,
            "pairs_done": 0, "pairs_leased": 0, "weight": 5,
        }])
    );
    let page = get(&format!("{base}/cluster")).await;
    assert!(
        page.body.contains("<table id=\"matches\">"),
        "{}",
        page.body
    );
    cluster.stop().await;
}
