this[b ++ ?? ! this.a -- ?? ~ typeof delete this.b ? () => (() => {
    ;
    -- this.a.c;
    return;
}): async(p, q,...r) => (() => {
    for (;;) {
        ;
        break;
    }
    try {
    } finally {
        ;
        ;
    }
    ;
})].a[async a => (b => {
    {
        ;
        ;
        ;
    }
    {
        ;
        ;
    }
}), [b, c, c, c] = b += async c => {
    return;
}] += async() => {
    try {
        ;
        ;
    } catch (b) {
    } finally {
    }
    for await (const c of [c, c, b] = b => {
        return;
    }) {
        for (; (p, q,...r) => {
            ;
            return;
        }, b => (async(p, q) => {
            ;
            await + delete this.b;
            return;
        }), () => {
            ;
            ;
            return;
        }, b => {
            ;
            ;
            return (p, q) => {
                ;
                ;
                return;
            }, async(p, q,...r) => {
                ;
                return;
            };
        };) {
            if (b -- ** b ++, a => (() => {
            }), async() => {
            }, a => {
            }) break;
        }
        ;
    }
    ;
};
