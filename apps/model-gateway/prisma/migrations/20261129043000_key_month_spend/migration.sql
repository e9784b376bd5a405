-- Each key's spend per UTC month, kept by the usage records' INSERT, for GET /v1/keys' spend sort and filter (issue 26).
-- CreateTable
CREATE TABLE "key_month_spend" (
    "key_hash" TEXT NOT NULL,
    "month" DATE NOT NULL,
    "organization_id" UUID NOT NULL,
    "cost_micros" BIGINT NOT NULL,

    CONSTRAINT "key_month_spend_pkey" PRIMARY KEY ("key_hash","month")
);

-- CreateIndex
CREATE INDEX "key_month_spend_organization_id_month_idx" ON "key_month_spend"("organization_id", "month");

-- The records stored before this table.
INSERT INTO "key_month_spend" ("key_hash", "month", "organization_id", "cost_micros")
SELECT "key_hash", date_trunc('month', "day")::date, "organization_id", sum("cost_micros")
  FROM "usage_records"
 GROUP BY 1, 2, 3;
