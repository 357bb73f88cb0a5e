// A plain layered breadth-first search for one car on a char-map track, as a yardstick for
// the solver (tools/bench_solver.py builds it with g++ -O2 and feeds it a track).
//
// The same race the solver searches under `offroad_penalty = "forbid"`: the nine-point
// moves (the velocity changes by -1, 0 or +1 per axis), a move allowed only when every
// cell it passes through is road (the cells of game.core.geometry.cells_along, worked
// out the same way), line gates crossed as game.core.geometry.LineGate counts them
// (from strictly behind to on or past the line, between its ends), the checkpoint before
// the finish. Not searched here: finish debts and checkpoint balances (a car driving the
// wrong way over a line), so it is a lower bound of the work, not a second referee.
//
// Input (stdin): "W H", H rows of W characters ('.' road, '#' not), "N" and N start
// places "x y", then two gates "ax ay bx by nx ny" (the finish, then the checkpoint), in
// squares. Output: "par P", "states S" (every reachable state), "search_seconds T" (all of
// them found), "par_seconds T" (until the first finish, where a plain BFS may stop) and
// "search_cpu_seconds T" (the search's processor time: on a shared machine, the fairer figure).
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <string>
#include <vector>

namespace {

struct Gate {
    // Twice the coordinates: half squares become whole numbers, so every test is exact.
    int64_t ax, ay, bx, by, nx, ny;
};

// +1: p -> q crosses forward; -1: backward; 0: not at all (p, q in squares).
int crossing(const Gate &g, int px, int py, int qx, int qy) {
    int64_t fp = g.nx * (2 * px - g.ax) + g.ny * (2 * py - g.ay);
    int64_t fq = g.nx * (2 * qx - g.ax) + g.ny * (2 * qy - g.ay);
    int dir;
    if (fp < 0 && fq >= 0) dir = 1;
    else if (fp >= 0 && fq < 0) dir = -1;
    else return 0;
    // Where the move meets the line must lie between a and b (ends included).
    int64_t dx = 2 * (qx - px), dy = 2 * (qy - py), ex = g.bx - g.ax, ey = g.by - g.ay;
    int64_t wx = 2 * px - g.ax, wy = 2 * py - g.ay;
    int64_t den = ex * dy - ey * dx;
    if (den == 0) return 0;
    int64_t num = wx * dy - wy * dx;  // u = num / den along a -> b
    if (den < 0) { den = -den; num = -num; }
    return (num >= 0 && num <= den) ? dir : 0;
}

// The cells a move (dx, dy) passes through, as game.core.geometry.cells_along lists them.
std::vector<std::pair<int, int>> cells_along(int dx, int dy) {
    int64_t ax = std::max(std::abs(dx), 1), ay = std::max(std::abs(dy), 1);
    int64_t whole = 2 * ax * ay;
    std::vector<int64_t> times = {0, whole};
    for (int i = 0; i < std::abs(dx); ++i) times.push_back((2 * i + 1) * ay);
    for (int j = 0; j < std::abs(dy); ++j) times.push_back((2 * j + 1) * ax);
    std::sort(times.begin(), times.end());
    times.erase(std::unique(times.begin(), times.end()), times.end());
    std::vector<std::pair<int, int>> cells;
    auto floordiv = [](int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); };
    for (size_t k = 0; k + 1 < times.size(); ++k) {
        int64_t mid = times[k] + times[k + 1];
        cells.emplace_back(static_cast<int>(floordiv(dx * mid + whole, 2 * whole)),
                           static_cast<int>(floordiv(dy * mid + whole, 2 * whole)));
    }
    if (cells.empty()) cells.emplace_back(0, 0);
    return cells;
}

}  // namespace

int main() {
    int w, h;
    if (!(std::cin >> w >> h)) return 2;
    std::vector<uint8_t> road(static_cast<size_t>(w) * h);
    for (int y = 0; y < h; ++y) {
        std::string row;
        std::cin >> row;
        for (int x = 0; x < w; ++x) road[static_cast<size_t>(y) * w + x] = row[x] == '.';
    }
    int n;
    std::cin >> n;
    std::vector<std::pair<int, int>> starts(n);
    for (auto &s : starts) std::cin >> s.first >> s.second;
    Gate gates[2];
    for (auto &g : gates) {
        double v[6];
        for (double &x : v) std::cin >> x;
        g = {static_cast<int64_t>(2 * v[0]), static_cast<int64_t>(2 * v[1]), static_cast<int64_t>(2 * v[2]),
             static_cast<int64_t>(2 * v[3]), static_cast<int64_t>(v[4]), static_cast<int64_t>(v[5])};
    }
    auto began = std::chrono::steady_clock::now();
    std::clock_t cpu_began = std::clock();

    const int vmax = 31, side = 2 * vmax + 1;
    std::vector<std::vector<std::pair<int, int>>> cells(static_cast<size_t>(side) * side);
    for (int vy = -vmax; vy <= vmax; ++vy)
        for (int vx = -vmax; vx <= vmax; ++vx)
            cells[static_cast<size_t>(vy + vmax) * side + vx + vmax] = cells_along(vx, vy);
    auto on_road = [&](int x, int y) { return x >= 0 && y >= 0 && x < w && y < h && road[static_cast<size_t>(y) * w + x]; };

    // A state: progress (0: the checkpoint is due, 1: the finish), node, velocity.
    const size_t per_progress = static_cast<size_t>(w) * h * side * side;
    std::vector<uint64_t> seen((2 * per_progress + 63) / 64, 0);
    auto index = [&](int p, int x, int y, int vx, int vy) {
        return ((static_cast<size_t>(p) * h + y) * w + x) * side * side + static_cast<size_t>(vy + vmax) * side +
               (vx + vmax);
    };
    auto visit = [&](size_t i) {
        uint64_t bit = uint64_t{1} << (i & 63);
        if (seen[i >> 6] & bit) return false;
        seen[i >> 6] |= bit;
        return true;
    };
    struct State { int16_t x, y; int8_t vx, vy, p; };
    std::vector<State> layer, next;
    for (auto &s : starts)
        if (visit(index(0, s.first, s.second, 0, 0))) layer.push_back({int16_t(s.first), int16_t(s.second), 0, 0, 0});
    size_t states = layer.size();
    int par = -1;
    double par_seconds = 0;
    // Every reachable state, as the solver's forward pass finds them (not stopping at par:
    // the CPUs read a distance for every state), layer by layer.
    for (int depth = 1; !layer.empty(); ++depth) {
        next.clear();
        for (const State &s : layer) {
            for (int ay = -1; ay <= 1; ++ay)
                for (int ax = -1; ax <= 1; ++ax) {
                    int vx = s.vx + ax, vy = s.vy + ay;
                    if (vx < -vmax || vx > vmax || vy < -vmax || vy > vmax) continue;
                    int qx = s.x + vx, qy = s.y + vy;
                    bool ok = true;
                    for (auto &c : cells[static_cast<size_t>(vy + vmax) * side + vx + vmax])
                        if (!on_road(s.x + c.first, s.y + c.second)) { ok = false; break; }
                    if (!ok) continue;
                    int p = s.p;
                    if (p == 1 && crossing(gates[0], s.x, s.y, qx, qy) == 1) {  // finished: no state after it
                        if (par < 0) {
                            par = depth;
                            par_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
                        }
                        continue;
                    }
                    if (p == 0 && crossing(gates[1], s.x, s.y, qx, qy) == 1) p = 1;
                    if (visit(index(p, qx, qy, vx, vy))) {
                        next.push_back({int16_t(qx), int16_t(qy), int8_t(vx), int8_t(vy), int8_t(p)});
                        ++states;
                    }
                }
        }
        layer.swap(next);
    }
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    double cpu = static_cast<double>(std::clock() - cpu_began) / CLOCKS_PER_SEC;
    std::printf("par %d\nstates %zu\nsearch_seconds %.6f\npar_seconds %.6f\nsearch_cpu_seconds %.6f\n", par, states,
                seconds, par_seconds, cpu);
    return 0;
}
