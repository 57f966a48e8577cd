-- wrk script for bench/wrk.sh: GET /api/v1/book for the positions listed in the file given
-- as the script's argument, one after another from a random place in the list.
local paths = {}
local index = 0

function init(args)
  for line in io.lines(args[1]) do
    paths[#paths + 1] = "/api/v1/book?position=" .. line
  end
  index = math.random(#paths)
end

function request()
  index = index % #paths + 1
  return wrk.format("GET", paths[index])
end
