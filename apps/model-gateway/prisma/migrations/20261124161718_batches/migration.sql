-- CreateTable
CREATE TABLE "batch_files" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "environment" "Environment" NOT NULL,
    "customer_id" UUID,
    "purpose" TEXT NOT NULL,
    "filename" TEXT NOT NULL,
    "bytes" INTEGER NOT NULL,
    "line_count" INTEGER NOT NULL,
    "content" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "batch_files_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "batches" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "environment" "Environment" NOT NULL,
    "customer_id" UUID,
    "key_hash" TEXT NOT NULL,
    "endpoint" TEXT NOT NULL,
    "input_file_id" UUID NOT NULL,
    "completion_window" TEXT NOT NULL,
    "metadata" JSONB,
    "scope_headers" JSONB NOT NULL,
    "status" TEXT NOT NULL,
    "total_lines" INTEGER NOT NULL,
    "completed_lines" INTEGER NOT NULL DEFAULT 0,
    "failed_lines" INTEGER NOT NULL DEFAULT 0,
    "output_file_id" UUID,
    "error_file_id" UUID,
    "errors" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "in_progress_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "finalizing_at" TIMESTAMPTZ(3),
    "completed_at" TIMESTAMPTZ(3),
    "failed_at" TIMESTAMPTZ(3),
    "expired_at" TIMESTAMPTZ(3),
    "cancelling_at" TIMESTAMPTZ(3),
    "cancelled_at" TIMESTAMPTZ(3),

    CONSTRAINT "batches_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "batch_lines" (
    "batch_id" UUID NOT NULL,
    "line" INTEGER NOT NULL,
    "custom_id" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "body" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "status_code" INTEGER,
    "response" JSONB,
    "request_id" TEXT,
    "claimed_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "batch_lines_pkey" PRIMARY KEY ("batch_id","line")
);

-- CreateIndex
CREATE INDEX "batch_files_organization_id_environment_created_at_idx" ON "batch_files"("organization_id", "environment", "created_at");

-- CreateIndex
CREATE INDEX "batches_organization_id_environment_created_at_idx" ON "batches"("organization_id", "environment", "created_at");

-- CreateIndex
CREATE INDEX "batches_organization_id_status_idx" ON "batches"("organization_id", "status");

-- CreateIndex
CREATE INDEX "batch_lines_batch_id_status_idx" ON "batch_lines"("batch_id", "status");

-- AddForeignKey
ALTER TABLE "batch_lines" ADD CONSTRAINT "batch_lines_batch_id_fkey" FOREIGN KEY ("batch_id") REFERENCES "batches"("id") ON DELETE CASCADE ON UPDATE CASCADE;
