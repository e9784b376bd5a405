-- CreateTable
CREATE TABLE "usage_daily" (
    "organization_id" UUID NOT NULL,
    "environment" "Environment" NOT NULL,
    "day" DATE NOT NULL,
    "model" TEXT NOT NULL,
    "project_id" TEXT NOT NULL DEFAULT '',
    "customer_id" TEXT NOT NULL DEFAULT '',
    "requests" BIGINT NOT NULL,
    "failed_requests" BIGINT NOT NULL,
    "input_tokens" BIGINT NOT NULL,
    "output_tokens" BIGINT NOT NULL,
    "cost_micros" BIGINT NOT NULL,

    CONSTRAINT "usage_daily_pkey" PRIMARY KEY ("organization_id","day","environment","model","project_id","customer_id")
);

-- The daily rows follow every INSERT into usage_records, whoever makes it: one upsert per statement over
-- the rows it stored (a transition table: a redelivered record that ON CONFLICT skipped is not in it), in
-- key order so concurrent flushes lock rows in the same order. A DELETE takes its rows off the same way.
CREATE FUNCTION "usage_daily_add"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "usage_daily" AS d ("organization_id", "environment", "day", "model", "project_id", "customer_id",
                                  "requests", "failed_requests", "input_tokens", "output_tokens", "cost_micros")
  SELECT n."organization_id", n."environment", n."day", n."model", coalesce(n."project_id"::text, ''), coalesce(n."customer_id"::text, ''),
         count(*), count(*) FILTER (WHERE n."outcome" <> 'finished'), coalesce(sum(n."input_tokens"), 0), coalesce(sum(n."output_tokens"), 0), coalesce(sum(n."cost_micros"), 0)
  FROM new_records n
  GROUP BY 1, 2, 3, 4, 5, 6
  ORDER BY 1, 3, 2, 4, 5, 6
  ON CONFLICT ("organization_id", "day", "environment", "model", "project_id", "customer_id") DO UPDATE SET
    "requests" = d."requests" + EXCLUDED."requests",
    "failed_requests" = d."failed_requests" + EXCLUDED."failed_requests",
    "input_tokens" = d."input_tokens" + EXCLUDED."input_tokens",
    "output_tokens" = d."output_tokens" + EXCLUDED."output_tokens",
    "cost_micros" = d."cost_micros" + EXCLUDED."cost_micros";
  RETURN NULL;
END
$$;

CREATE TRIGGER "usage_records_daily_add"
  AFTER INSERT ON "usage_records"
  REFERENCING NEW TABLE AS new_records
  FOR EACH STATEMENT EXECUTE FUNCTION "usage_daily_add"();

CREATE FUNCTION "usage_daily_remove"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "usage_daily" AS d SET
    "requests" = d."requests" - o."requests",
    "failed_requests" = d."failed_requests" - o."failed_requests",
    "input_tokens" = d."input_tokens" - o."input_tokens",
    "output_tokens" = d."output_tokens" - o."output_tokens",
    "cost_micros" = d."cost_micros" - o."cost_micros"
  FROM (SELECT r."organization_id", r."environment", r."day", r."model", coalesce(r."project_id"::text, '') AS "project_id", coalesce(r."customer_id"::text, '') AS "customer_id",
               count(*) AS "requests", count(*) FILTER (WHERE r."outcome" <> 'finished') AS "failed_requests",
               coalesce(sum(r."input_tokens"), 0) AS "input_tokens", coalesce(sum(r."output_tokens"), 0) AS "output_tokens", coalesce(sum(r."cost_micros"), 0) AS "cost_micros"
        FROM old_records r GROUP BY 1, 2, 3, 4, 5, 6) AS o
  WHERE d."organization_id" = o."organization_id" AND d."day" = o."day" AND d."environment" = o."environment"
    AND d."model" = o."model" AND d."project_id" = o."project_id" AND d."customer_id" = o."customer_id";
  RETURN NULL;
END
$$;

CREATE TRIGGER "usage_records_daily_remove"
  AFTER DELETE ON "usage_records"
  REFERENCING OLD TABLE AS old_records
  FOR EACH STATEMENT EXECUTE FUNCTION "usage_daily_remove"();

-- The records stored before this migration, counted once.
INSERT INTO "usage_daily" ("organization_id", "environment", "day", "model", "project_id", "customer_id",
                           "requests", "failed_requests", "input_tokens", "output_tokens", "cost_micros")
SELECT "organization_id", "environment", "day", "model", coalesce("project_id"::text, ''), coalesce("customer_id"::text, ''),
       count(*), count(*) FILTER (WHERE "outcome" <> 'finished'), coalesce(sum("input_tokens"), 0), coalesce(sum("output_tokens"), 0), coalesce(sum("cost_micros"), 0)
FROM "usage_records"
GROUP BY 1, 2, 3, 4, 5, 6;
