"""The bundled sales database of the `sales-25` question set, built from code and a seed.

`build_sales_db(path, seed)` writes a small SQLite file (about 1 MB, well under a second) of a
retailer's two full years of orders, 2023-01-01..2024-12-31: regions, customers, categories,
products, sales channels, promotions, orders and order items, with foreign keys. The same seed
gives a byte-identical file, so a question set's gold answers never drift between machines.

Traps on purpose (the questions test them): the channel names do not say which channels are
"online" (the glossary does, through `sales_channels.channel_type`: a web store and a mobile app
have no "online" in their name, while a phone channel does); revenue counts completed orders
only; 2023 order lines were sold below today's `products.list_price` for some categories;
discounts are recorded on each order line (`discount_pct`, 0 when none) with the promotion
that granted it.
"""

from __future__ import annotations

import bisect
import datetime as dt
import itertools
import os
import random
import sqlite3
import tempfile
from pathlib import Path

import sqlite_utils

REGIONS = [  # (name, code, weight of customers)
    ("North", "N", 0.22), ("South", "S", 0.18), ("East", "E", 0.26),
    ("West", "W", 0.20), ("Central", "C", 0.14),
]
SEGMENTS = [("Consumer", 0.62), ("Small Business", 0.24), ("Corporate", 0.14)]

# (code, name, type): only web, app and marketplace are "online" (see set.toml's glossary).
CHANNELS = [
    ("WEB", "Web Store", "web"),
    ("APP", "Mobile App", "app"),
    ("MKT", "Online Marketplace", "marketplace"),
    ("PHN", "Online Catalog Hotline", "phone"),
    ("STO", "Retail Stores", "store"),
    ("FLD", "Field Sales", "field"),
]
# Channel weights per region, in CHANNELS order: regions differ so the online share differs.
REGION_CHANNELS = {
    "North": (30, 18, 10, 14, 20, 8), "South": (18, 10, 14, 22, 28, 8),
    "East": (34, 26, 12, 8, 14, 6), "West": (26, 20, 8, 12, 26, 8),
    "Central": (14, 8, 18, 26, 24, 10),
}

# category -> (2023 prices were lower by this factor, products as (name, list price))
CATEGORIES = {
    "Electronics": (1.06, [
        ("Wireless Earbuds", 79.99), ("USB-C Hub", 39.5), ("4K Monitor 27in", 329.0),
        ("Mechanical Keyboard", 119.95), ("Noise-Cancelling Headphones", 249.99),
        ("Portable SSD 1TB", 109.0), ("Smart Speaker", 59.99), ("Laptop Pro 14", 1899.0),
        ("Webcam HD", 49.95), ("Power Bank 20000mAh", 34.99),
    ]),
    "Home & Kitchen": (1.04, [
        ("Espresso Machine", 289.0), ("Chef's Knife", 64.5), ("Air Fryer", 129.99),
        ("Cast Iron Skillet", 42.0), ("Blender", 89.95), ("Coffee Grinder", 54.99),
        ("Bath Towel Set", 39.99), ("Table Lamp", 47.25),
    ]),
    "Office Supplies": (1.0, [
        ("Ergonomic Chair", 349.0), ("Standing Desk", 499.0), ("Printer Paper 5-Pack", 27.49),
        ("Gel Pens 12-Pack", 11.99), ("Desk Organizer", 23.5), ("Label Maker", 44.95),
        ("Whiteboard 90x60", 69.0), ("Paper Shredder", 119.0),
    ]),
    "Sports & Outdoors": (1.05, [
        ("Yoga Mat", 29.99), ("Camping Tent 4P", 219.0), ("Trail Running Shoes", 134.95),
        ("Dumbbell Set 20kg", 89.0), ("Insulated Bottle", 24.99), ("Cycling Helmet", 74.5),
        ("Hiking Backpack 40L", 109.99),
    ]),
    "Books": (1.0, [
        ("SQL for Analysts", 39.99), ("The Data Warehouse Handbook", 54.0),
        ("Statistics in Practice", 47.5), ("Modern Cooking", 32.95),
        ("Travel Guide: Asia", 24.99), ("Children's Atlas", 19.99),
    ]),
    "Toys & Games": (1.03, [
        ("Building Blocks 1000pc", 59.99), ("Strategy Board Game", 44.99),
        ("Remote Control Car", 69.5), ("Puzzle 2000pc", 27.99), ("Plush Bear", 18.5),
        ("Card Game Party Pack", 14.99),
    ]),
    "Beauty": (1.02, [
        ("Vitamin C Serum", 34.0), ("Hair Dryer Pro", 139.99), ("Moisturizer 50ml", 28.5),
        ("Electric Toothbrush", 79.0), ("Perfume 100ml", 94.95),
    ]),
    "Grocery": (1.07, [
        ("Organic Coffee Beans 1kg", 24.5), ("Green Tea 100 Bags", 9.99),
        ("Olive Oil 1L", 15.75), ("Dark Chocolate Box", 12.49), ("Mixed Nuts 500g", 13.99),
        ("Protein Bars 12-Pack", 21.99),
    ]),
}

# (name, discount %, first day, last day, category or None, product name or None)
PROMOTIONS = [
    ("New Year Electronics Sale", 15.0, "2023-01-02", "2023-01-15", "Electronics", None),
    ("Spring Home Refresh", 10.0, "2023-03-20", "2023-04-09", "Home & Kitchen", None),
    ("Back to Office", 20.0, "2023-08-28", "2023-09-10", "Office Supplies", None),
    ("Summer Outdoors", 15.0, "2023-06-15", "2023-07-15", "Sports & Outdoors", None),
    ("Earbuds Flash Deal", 25.0, "2023-05-05", "2023-05-07", None, "Wireless Earbuds"),
    ("Black Friday 2023", 25.0, "2023-11-24", "2023-11-27", "Electronics", None),
    ("Holiday Toys 2023", 20.0, "2023-12-01", "2023-12-24", "Toys & Games", None),
    ("Reading Month", 10.0, "2023-10-01", "2023-10-31", "Books", None),
    ("New Year Tech Deals", 15.0, "2024-01-02", "2024-01-14", "Electronics", None),
    ("Espresso Launch Offer", 12.5, "2024-02-01", "2024-02-29", None, "Espresso Machine"),
    ("Spring Beauty Week", 15.0, "2024-04-08", "2024-04-14", "Beauty", None),
    ("Standing Desk Promo", 10.0, "2024-05-01", "2024-06-30", None, "Standing Desk"),
    ("Summer Outdoors 2024", 20.0, "2024-06-10", "2024-07-07", "Sports & Outdoors", None),
    ("Back to School Books", 15.0, "2024-08-19", "2024-09-08", "Books", None),
    ("Laptop Season", 7.5, "2024-09-01", "2024-09-30", None, "Laptop Pro 14"),
    ("Black Friday 2024", 30.0, "2024-11-29", "2024-12-02", "Electronics", None),
    ("Holiday Toys 2024", 20.0, "2024-12-01", "2024-12-22", "Toys & Games", None),
    ("Pantry Stock-Up", 5.0, "2024-10-14", "2024-10-27", "Grocery", None),
]

FIRST_NAMES = (
    "Ava Liam Mia Noah Zoe Ethan Lily Lucas Chloe Mason Emma Oliver Grace Leo Hannah Jack Ella "
    "Ryan Nora Owen Wei Fang Jun Mei Hiro Yuki Aarav Priya Omar Layla Mateo Sofia Ivan Anya "
    "Kofi Amara Lars Freya Diego Lucia"
).split()
LAST_NAMES = (
    "Smith Chen Garcia Müller Tanaka Patel Brown Wang Kim Silva Novak Rossi Dubois Jensen Khan "
    "Lopez Nguyen Okafor Larsen Cohen Ivanova Sato Zhang Li Moreau Fischer Walsh Murphy Haddad "
    "Costa Reyes Berg Park Das Evans Quinn Torres Young Ward Hale"
).split()

N_CUSTOMERS = 640
# Orders per month (January first): busier in Q4, and 2024 grows over 2023.
MONTHLY_ORDERS = {
    2023: (128, 112, 134, 131, 140, 137, 144, 148, 151, 161, 209, 239),
    2024: (154, 135, 162, 155, 168, 171, 170, 179, 184, 193, 248, 288),
}


def build_sales_db(path: Path, seed: int) -> Path:
    """Build the sales database at `path` from `seed` and return `path`.

    Deterministic: the same seed gives a byte-identical file. The file is written beside `path`
    under a temporary name and renamed into place, so a reader never sees a half-built database;
    an existing file at `path` is replaced. Takes well under a second.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # A unique name, so two builders racing for the same cache file cannot interleave.
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".building")
    os.close(fd)
    tmp = Path(name)
    try:
        _write(tmp, random.Random(seed))
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def _write(file: Path, rng: random.Random) -> None:
    tables = _generate(rng)
    conn = sqlite3.connect(file)
    try:
        # A temporary file renamed into place only on success: durability on the way is moot.
        conn.execute("PRAGMA synchronous = OFF")
        conn.execute("PRAGMA journal_mode = MEMORY")
        db = sqlite_utils.Database(conn)
        for name, (rows, pk, fks) in tables.items():
            # sqlite-utils writes the schema; executemany is ten times faster than insert_all.
            # A None in the first row is one of the nullable integer keys (promotion_id, ...).
            types = {k: int if v is None else type(v) for k, v in rows[0].items()}
            db.table(name).create(types, pk=pk, foreign_keys=fks)
            conn.executemany(
                f"INSERT INTO [{name}] ({', '.join(types)}) VALUES ({', '.join('?' * len(types))})",
                [tuple(row.values()) for row in rows])
        for table, column in (("customers", "region_id"), ("products", "category_id"),
                              ("orders", "customer_id"), ("orders", "order_date"),
                              ("order_items", "order_id"), ("order_items", "product_id")):
            db.table(table).create_index([column])
        conn.commit()
        conn.execute("VACUUM")
    finally:
        conn.close()


def _generate(rng: random.Random) -> dict[str, tuple[list[dict], str, list]]:
    """Every table's rows, in insertion order: name -> (rows, primary key, foreign keys)."""
    regions = [{"region_id": i, "region_code": code, "region_name": name}
               for i, (name, code, _w) in enumerate(REGIONS, 1)]
    categories: list[dict] = []
    products: list[dict] = []
    price_2023: dict[int, float] = {}
    for cat_id, (cat, (factor, items)) in enumerate(CATEGORIES.items(), 1):
        categories.append({"category_id": cat_id, "category_name": cat})
        for name, price in items:
            pid = len(products) + 1
            products.append({"product_id": pid, "sku": f"SKU-{cat_id:02d}{pid:03d}",
                             "product_name": name, "category_id": cat_id, "list_price": price})
            price_2023[pid] = round(price / factor, 2)
    channels = [{"channel_code": c, "channel_name": n, "channel_type": t} for c, n, t in CHANNELS]
    customers, activity = _customers(rng)
    promotions = _promotions(categories, products)
    orders, items = _orders(rng, customers, activity, products, promotions, price_2023)
    return {
        "regions": (regions, "region_id", []),
        "categories": (categories, "category_id", []),
        "products": (products, "product_id", [("category_id", "categories", "category_id")]),
        "sales_channels": (channels, "channel_code", []),
        "customers": (customers, "customer_id", [("region_id", "regions", "region_id")]),
        "promotions": (promotions, "promotion_id", [
            ("category_id", "categories", "category_id"),
            ("product_id", "products", "product_id")]),
        "orders": (orders, "order_id", [("customer_id", "customers", "customer_id"),
                                        ("channel_code", "sales_channels", "channel_code")]),
        "order_items": (items, "order_item_id", [("order_id", "orders", "order_id"),
                                                 ("product_id", "products", "product_id"),
                                                 ("promotion_id", "promotions", "promotion_id")]),
    }


def _customers(rng: random.Random) -> tuple[list[dict], list[float]]:
    """Customers sorted by signup date, and how often each one orders (a heavy tail)."""
    names = rng.sample([f"{f} {last}" for f in FIRST_NAMES for last in LAST_NAMES], N_CUSTOMERS)
    start, span = dt.date(2021, 1, 1), (dt.date(2024, 10, 31) - dt.date(2021, 1, 1)).days
    rows, activity = [], []
    for name in names:
        region_id = rng.choices(range(1, len(REGIONS) + 1), [w for *_x, w in REGIONS])[0]
        segment = rng.choices([s for s, _w in SEGMENTS], [w for _s, w in SEGMENTS])[0]
        # Most customers predate the two years of orders; a tail signs up during them.
        offset = int(span * (rng.random() ** 1.6))
        rows.append({"customer_name": name, "segment": segment, "region_id": region_id,
                     "signup_date": (start + dt.timedelta(days=offset)).isoformat()})
        activity.append(min(rng.paretovariate(2.0), 20.0))
    order = sorted(range(len(rows)), key=lambda i: (rows[i]["signup_date"], i))
    rows = [{"customer_id": n, **rows[i]} for n, i in enumerate(order, 1)]
    return rows, [activity[i] for i in order]


def _promotions(categories: list[dict], products: list[dict]) -> list[dict]:
    cat_ids = {c["category_name"]: c["category_id"] for c in categories}
    prod_ids = {p["product_name"]: p["product_id"] for p in products}
    return [{"promotion_id": i, "promotion_name": name, "discount_pct": pct,
             "start_date": first, "end_date": last,
             "category_id": cat_ids.get(cat), "product_id": prod_ids.get(prod)}
            for i, (name, pct, first, last, cat, prod) in enumerate(PROMOTIONS, 1)]


def _best_promotion(live: list[dict], product: dict) -> dict | None:
    """The biggest discount among the promotions `live` that day covering `product`."""
    covering = [p for p in live if p["product_id"] == product["product_id"]
                or p["category_id"] == product["category_id"]]
    return max(covering, key=lambda p: (p["discount_pct"], -p["promotion_id"]), default=None)


def _live_promotions(promotions: list[dict]) -> dict[str, list[dict]]:
    """Day (ISO text) -> the promotions running that day; most days have none."""
    live: dict[str, list[dict]] = {}
    for promo in promotions:
        day = dt.date.fromisoformat(promo["start_date"])
        last = dt.date.fromisoformat(promo["end_date"])
        while day <= last:
            live.setdefault(day.isoformat(), []).append(promo)
            day += dt.timedelta(days=1)
    return live


# Cumulative weights (random.choices' cum_weights) of what varies per order and per line.
STATUSES = (("completed", "cancelled", "returned"), (92, 97, 100))
LINES_PER_ORDER = ((1, 2, 3, 4, 5, 6, 7, 8),
                   tuple(itertools.accumulate((22, 24, 18, 12, 9, 7, 5, 3))))
QUANTITIES = (1, 2, 3, 4, 5, 8, 10)
QUANTITY_CONSUMER = tuple(itertools.accumulate((60, 22, 10, 5, 3, 0, 0)))
QUANTITY_BUSINESS = tuple(itertools.accumulate((5, 3, 2, 1, 1, 1, 1)))


def _orders(rng, customers, activity, products, promotions, price_2023):
    """Orders day by day over the two years, each with 1-8 distinct products."""
    region_names = [name for name, _c, _w in REGIONS]
    cum_popularity = list(itertools.accumulate(rng.uniform(0.3, 3.0) for _p in products))
    signups = [c["signup_date"] for c in customers]  # sorted
    cum_activity = list(itertools.accumulate(activity))
    live_by_day = _live_promotions(promotions)
    orders: list[dict] = []
    items: list[dict] = []
    for year, months in MONTHLY_ORDERS.items():
        for month, count in enumerate(months, 1):
            first = dt.date(year, month, 1)
            days = (dt.date(year + month // 12, month % 12 + 1, 1) - first).days
            for day in sorted(first + dt.timedelta(days=rng.randrange(days)) for _ in range(count)):
                iso = day.isoformat()
                # Only customers who had signed up by then, weighted by how active they are.
                eligible = bisect.bisect_right(signups, iso)
                pick = rng.random() * cum_activity[eligible - 1]
                cust = customers[bisect.bisect_right(cum_activity, pick, 0, eligible - 1)]
                weights = list(REGION_CHANNELS[region_names[cust["region_id"] - 1]])
                if cust["segment"] == "Corporate":
                    weights[-1] *= 6  # corporate buyers go through field sales
                channel = rng.choices(CHANNELS, weights)[0][0]
                status = rng.choices(STATUSES[0], cum_weights=STATUSES[1])[0]
                order_id = len(orders) + 1
                orders.append({"order_id": order_id, "customer_id": cust["customer_id"],
                               "channel_code": channel, "order_date": iso, "status": status})
                consumer = cust["segment"] == "Consumer"
                cum_quantity = QUANTITY_CONSUMER if consumer else QUANTITY_BUSINESS
                n_lines = rng.choices(LINES_PER_ORDER[0], cum_weights=LINES_PER_ORDER[1])[0]
                picked = dict.fromkeys(p["product_id"] for p in rng.choices(
                    products, cum_weights=cum_popularity, k=n_lines * 2))
                live = live_by_day.get(iso, [])
                for product_id in list(picked)[:n_lines]:
                    product = products[product_id - 1]
                    promo = _best_promotion(live, product) if live else None
                    price = product["list_price"] if year == 2024 else price_2023[product_id]
                    items.append({
                        "order_item_id": len(items) + 1, "order_id": order_id,
                        "product_id": product_id,
                        "quantity": rng.choices(QUANTITIES, cum_weights=cum_quantity)[0],
                        "unit_price": price,
                        "discount_pct": promo["discount_pct"] if promo else 0.0,
                        "promotion_id": promo["promotion_id"] if promo else None})
    return orders, items
