internal float dotImpl(float2 a, float2 b) { return a.x * b.x + a.y * b.y; }
