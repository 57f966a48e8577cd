//! Builds the plain C random-game loop that the engine benchmark measures side by side.

fn main() {
    println!("cargo:rerun-if-changed=c/random_games.c");
    cc::Build::new()
        .file("c/random_games.c")
        .opt_level(2)
        .compile("random_games");
}
