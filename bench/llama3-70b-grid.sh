# llama3-70b-grid.sh - the large campaign that bench-plan.sh,
# bench-results.sh and tests/cli/huge.sh plan: Llama 3 70B on 128 nodes
# of 8 H100 at 8,192 tokens, over ten search lists (122,880 combinations
# of which 35,440 are valid layouts at one global batch size).  Sourced,
# not run.
#
# llama3_70b_grid FILE NAME TEMPLATE GBS MAX: write the
# campaign to FILE with its search group left open, so that the caller
# can add lists before it closes it with "};".  GBS is a libconfig value
# (1024, or [512, 1024]); MAX is search.max_candidates.  The search
# strategy is the default, adaptive.
llama3_70b_grid() {
	cat >"$1" <<EOF
name = "$2";
model = "llama3_70b";
nodes = 128;
gpus_per_node = 8;
gpu = "h100-sxm";
seq_length = 8192;
global_batch_size = $4;
run = { template = "$3"; };
search = {
  max_candidates = $5;
  tensor_parallel = [1, 2, 4, 8];
  pipeline_parallel = [1, 2, 4, 5, 8, 10, 16, 20];
  context_parallel = [1, 2, 4, 8];
  virtual_pipeline = [1, 2, 4, 5, 8, 10];
  micro_batch_size = [1, 2, 4, 8];
  recompute = ["none", "selective", "full"];
  recompute_num_layers = [1, 2, 4, 8];
  recompute_method = ["block", "uniform"];
  sequence_parallel = [true, false];
  attention = ["flash", "unfused"];
EOF
}
